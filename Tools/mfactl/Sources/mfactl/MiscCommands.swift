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

/// `mfactl audit tail`: libmfa does not store audit events.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Audit events (not stored by libmfa: see `audit tail --help`).",
        subcommands: [Tail.self])

    struct Tail: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Says where audit events go: libmfa does not store them (exit 69).",
            discussion: """
                libmfa hands each audit event to the host's callback (MFAOptions.audit, mfa_options.audit) \
                as it happens, and keeps none in the store: the host writes them where its other logs go. \
                Administrative calls, mfactl's included, carry the actor in their events. The store \
                options, --json, --follow and --lines are accepted, so that a script written for a log \
                tail gets this exit status (69), not a usage error.
                """)
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @Flag(name: .long, help: "Accepted; there is nothing to follow.") var follow = false
        @Option(name: [.customShort("n"), .customLong("lines")], help: "Accepted; there are no lines.") var lines: Int?

        func run() throws {
            Terminal.error("""
                mfactl: audit events are not stored by libmfa: each one goes to the host's audit callback \
                (MFAOptions.audit in Swift, mfa_options.audit in C, audit= in Python), which keeps them \
                where its own logs go
                """)
            throw ExitCode(ExitStatus.unavailable)
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
