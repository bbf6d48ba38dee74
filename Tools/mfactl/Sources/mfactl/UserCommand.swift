import ArgumentParser
import MFA

/// `mfactl user reset|delete`.
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Reset a user who lost their factors, or erase a user.",
        subcommands: [Reset.self, Delete.self])

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove every factor of a user and revoke their tokens (they sign in with the first factor alone).",
            discussion: "A user with nothing to reset (no factor, nothing in flight) exits 66; nothing is written.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var actor: ActorOption
        @OptionGroup var tenant: TenantOption
        @Argument(help: "The user's uid.") var uid: String

        func run() throws {
            try running {
                let removal = try store.open().resetUser(uid: uid, tenant: tenant.tenant, actor: actor.name)
                report("reset", removal, json: output.json, uid: uid, tenant: tenant.tenant)
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete everything stored about a user (an erasure request).",
            discussion: "Only a revocation marker stays, so that tokens issued before stay refused. A user of whom "
                + "nothing else is stored (never seen, or deleted before) exits 66; nothing is written.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var actor: ActorOption
        @OptionGroup var tenant: TenantOption
        @Argument(help: "The user's uid.") var uid: String

        func run() throws {
            try running {
                let removal = try store.open().deleteUser(uid: uid, tenant: tenant.tenant, actor: actor.name)
                report("deleted", removal, json: output.json, uid: uid, tenant: tenant.tenant)
            }
        }
    }
}

private func report(_ verb: String, _ removal: AdminRemoval, json: Bool, uid: String, tenant: String?) {
    if json {
        Output.json(.object([("tenant", Output.string(tenant)), ("uid", .string(uid)), ("action", .string(verb)),
                             ("removed", .array(removal.factors.map { Output.factor($0) }))]))
    } else {
        Terminal.out("\(verb) \(uid): \(removal.factors.count) factors removed, tokens revoked")
        for factor in removal.factors { Terminal.out("  \(factor.uid)  \(factor.factorID)  \(factor.displayName ?? "-")") }
    }
}
