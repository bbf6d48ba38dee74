import ArgumentParser
import MFA

/// `mfactl purge`.
struct PurgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Delete what has expired: pending secrets, SMS codes, records of used tokens past their expiry.")
    @OptionGroup var store: StoreOptions

    func run() throws {
        try running {
            try store.open().purgeExpired()
            Terminal.out("purged expired records")
        }
    }
}

/// `mfactl stats`.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Count users and factors per tenant and kind.")
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        try running {
            let stats = try store.open().stats()
            if output.json {
                Output.json(.object([
                    ("users", .int(Int64(stats.totalUsers))), ("factors", .int(Int64(stats.totalFactors))),
                    ("tenants", .array(stats.tenants.map {
                        .object([("tenant", Output.string($0.tenant)), ("users", .int(Int64($0.users)))])
                    })),
                    ("kinds", .array(stats.rows.map {
                        .object([("tenant", Output.string($0.tenant)), ("factorId", .string($0.factorID)),
                                 ("factors", .int(Int64($0.factors))), ("users", .int(Int64($0.users)))])
                    })),
                ]))
            } else {
                Output.table(["TENANT", "KIND", "FACTORS", "USERS"], stats.rows.map {
                    [Output.tenant($0.tenant), $0.factorID, Output.count($0.factors), Output.count($0.users)]
                })
                Terminal.out("")
                Output.table(["TENANT", "USERS WITH FACTORS"], stats.tenants.map {
                    [Output.tenant($0.tenant), Output.count($0.users)]
                })
                Terminal.out("total: \(Output.count(stats.totalUsers)) users, \(Output.count(stats.totalFactors)) factors")
            }
        }
    }
}
