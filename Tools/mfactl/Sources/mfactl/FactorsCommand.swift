import ArgumentParser
import MFA

/// `mfactl factors list|rename|remove`.
struct FactorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "factors", abstract: "Show, rename or remove a user's second factors.",
        subcommands: [List.self, Rename.self, Remove.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List one user's factors, oldest first.",
            discussion: "A user with no factors is exit 66 (with --json: [] and exit 0).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var tenant: TenantOption
        @Argument(help: "The user's uid.") var uid: String
        @Flag(help: "Show phone numbers and email addresses in full (masked by default).") var showNumbers = false

        func run() throws {
            try running {
                let context = try store.open()
                let factors = try context.userFactors(uid: uid, tenant: tenant.tenant, maskPhoneNumbers: !showNumbers)
                // WebAuthn factors say more: which are passkeys that sign in without a
                // password, which are synced (the backup flags), how they were attested.
                let credentials = factors.contains { $0.factorID == WebAuthnMultiFactorID }
                    ? try context.webAuthnCredentials(uid: uid, tenant: tenant.tenant) : []
                if output.json {
                    Output.json(.array(factors.map { info in
                        Output.factor(info, webAuthn: credentials.first { $0.enrollmentID == info.uid })
                    }))
                } else {
                    guard !factors.isEmpty else {
                        throw Failure("\(uid) has no second factors", status: ExitStatus.notFound)
                    }
                    Output.table(["ENROLLMENT ID", "KIND", "NAME", "ENROLLED (UTC)", "HINT"], factors.map(Output.factorRow))
                }
            }
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a factor (an empty name removes it).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var actor: ActorOption
        @Argument(help: "The factor's enrollment id.") var enrollmentID: String
        @Argument(help: "The new display name, at most 256 bytes.") var name: String

        func run() throws {
            try running {
                let factor = try store.open().renameFactor(enrollmentID: enrollmentID, displayName: name,
                                                           actor: actor.name)
                if output.json {
                    Output.json(Output.factor(factor.info, tenant: factor.tenant, uid: factor.uid))
                } else {
                    Terminal.out("renamed \(enrollmentID) of \(factor.uid) to \(factor.info.displayName ?? "(no name)")")
                }
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove one factor, whoever has it, and revoke that user's tokens.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var actor: ActorOption
        @Argument(help: "The factor's enrollment id.") var enrollmentID: String

        func run() throws {
            try running {
                let factor = try store.open().unenrollFactor(enrollmentID: enrollmentID, actor: actor.name)
                if output.json {
                    Output.json(Output.factor(factor.info, tenant: factor.tenant, uid: factor.uid))
                } else {
                    Terminal.out("removed \(factor.info.factorID) factor \(enrollmentID) of \(factor.uid); tokens revoked")
                }
            }
        }
    }
}
