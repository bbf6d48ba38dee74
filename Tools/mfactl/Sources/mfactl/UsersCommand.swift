import ArgumentParser
import MFA

/// `mfactl users list`.
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "List the users that have second factors.", subcommands: [List.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List users with factors, a page at a time, ordered by tenant then uid.",
            discussion: "Without --all, one page is printed and the cursor of the next is shown.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @Option(help: ArgumentHelp("Only this tenant's users.", valueName: "tenant")) var tenant: String?
        @Flag(help: "Only the project's users (no tenant).") var project = false
        @Option(help: ArgumentHelp("Only users with a factor of this kind: totp, phone, recovery, webauthn, email, hotp, yubico_otp.", valueName: "kind"))
        var factor: String?
        @Option(help: "Users per page, 1 to 1000.") var limit = 100
        @Option(help: ArgumentHelp("Start after this cursor (from the previous page).", valueName: "cursor"))
        var cursor: String?
        @Flag(help: "Follow the cursors to the last page.") var all = false

        func validate() throws {
            if project && tenant != nil { throw ValidationError("give --tenant or --project, not both") }
        }

        func run() throws {
            try running {
                let context = try store.open()
                let filter: TenantFilter = project ? .project : tenant.map { .tenant($0) } ?? .any
                var cursor = self.cursor
                var rows: [[String]] = []
                repeat {
                    let page = try context.listUsers(tenant: filter, factorID: factor, limit: limit, cursor: cursor)
                    for user in page.users {
                        if output.json {
                            Output.json(.object([
                                ("tenant", Output.string(user.tenant)), ("uid", .string(user.uid)),
                                ("factors", .object(user.factorCounts.map { ($0.factorID, .int(Int64($0.count))) })),
                            ]))
                        } else {
                            rows.append([Output.tenant(user.tenant), user.uid, user.factorCounts.map {
                                "\($0.factorID):\($0.count)"
                            }.joined(separator: " ")])
                        }
                    }
                    cursor = page.nextCursor
                } while all && cursor != nil
                if output.json {
                    if let cursor { Output.json(.object([("nextCursor", .string(cursor))])) }
                } else {
                    Output.table(["TENANT", "UID", "FACTORS"], rows)
                    if let cursor { Terminal.out("more: --cursor \(cursor)") }
                }
            }
        }
    }
}
