import ArgumentParser
import MFA

/// `mfactl tokens list|assign|remove|resync`: hardware tokens.
struct TokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens", abstract: "Hardware tokens: list them, assign one to a user, remove one, resync HOTP.",
        discussion: """
            Tokens imported without a user (mfactl import pskc, import yubikey-csv) wait in the \\
            store, known by their serial number, until they are assigned (tokens assign) or claimed \\
            by their user with a code.
            """,
        subcommands: [List.self, Assign.self, Remove.self, Resync.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the unassigned tokens (with --assigned, users' tokens too), by tenant then serial.",
            discussion: "Without --all, one page is printed and the cursor of the next is shown.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @Option(help: ArgumentHelp("Only this tenant's tokens.", valueName: "tenant")) var tenant: String?
        @Flag(help: "Only the project's tokens (no tenant).") var project = false
        @Flag(help: "List the tokens users have as factors too.") var assigned = false
        @Option(help: "Tokens per page, 1 to 1000.") var limit = 100
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
                    let page = try context.listTokens(tenant: filter, includeAssigned: assigned, limit: limit,
                                                      cursor: cursor)
                    for token in page.tokens {
                        if output.json {
                            Output.json(.object([
                                ("tenant", Output.string(token.tenant)), ("serial", .string(token.serial)),
                                ("factorId", .string(token.factorID)), ("publicId", Output.string(token.publicID)),
                                ("issuer", Output.string(token.issuer)), ("uid", Output.string(token.uid)),
                                ("enrollmentId", Output.string(token.enrollmentID)), ("time", .int(token.time)),
                            ]))
                        } else {
                            rows.append([Output.tenant(token.tenant), token.serial, token.factorID,
                                         token.publicID ?? "-", token.uid ?? "(unassigned)", Output.date(token.time)])
                        }
                    }
                    cursor = page.nextCursor
                } while all && cursor != nil
                if output.json {
                    if let cursor { Output.json(.object([("nextCursor", .string(cursor))])) }
                } else {
                    Output.table(["TENANT", "SERIAL", "KIND", "PUBLIC ID", "USER", "SINCE (UTC)"], rows)
                    if let cursor { Terminal.out("more: --cursor \(cursor)") }
                }
            }
        }
    }

    struct Assign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the unassigned token SERIAL (or a YubiKey's public id) the factor of the user UID.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var actor: ActorOption
        @OptionGroup var tenant: TenantOption
        @Option(help: "A name for the factor.") var name: String?
        @Argument(help: "The token's serial number.") var serial: String
        @Argument(help: "The user's uid.") var uid: String

        func run() throws {
            try running {
                let info = try store.open().assignToken(serial: serial, uid: uid, tenant: tenant.tenant,
                                                        displayName: name, actor: actor.name)
                if output.json {
                    Output.json(Output.factor(info, tenant: tenant.tenant, uid: uid))
                } else {
                    Terminal.out("assigned \(info.factorID) token \(serial) to \(uid): factor \(info.uid)")
                }
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an unassigned token (a user's token is removed with `factors remove`).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var actor: ActorOption
        @OptionGroup var tenant: TenantOption
        @Argument(help: "The token's serial number.") var serial: String

        func run() throws {
            try running {
                try store.open().removeToken(serial: serial, tenant: tenant.tenant, actor: actor.name)
                Terminal.out("removed token \(serial)")
            }
        }
    }

    struct Resync: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring an HOTP factor's counter forward with two consecutive codes from its token.",
            discussion: """
                For a token pressed many times away from the server: press it twice and give both \\
                codes, in order. They may lie up to the configuration's hotp.resyncWindow counters \\
                ahead; the counter only moves forward. (Users can do the same at sign-in by giving two \\
                codes.)
                """)
        @OptionGroup var store: StoreOptions
        @OptionGroup var actor: ActorOption
        @Argument(help: "The factor's enrollment id.") var enrollmentID: String
        @Argument(help: "A code from the token.") var code: String
        @Argument(help: "The code of the next press.") var nextCode: String

        func run() throws {
            try running {
                try store.open().resyncToken(enrollmentID: enrollmentID, code: code, nextCode: nextCode,
                                             actor: actor.name)
                Terminal.out("resynchronized \(enrollmentID)")
            }
        }
    }
}
