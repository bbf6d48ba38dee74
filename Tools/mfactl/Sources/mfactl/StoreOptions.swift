import ArgumentParser
import MFA

/// Where the store is and how to open it: the same store location and
/// master keys as the library's `MFAOptions`.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The store: an SQLite file or a postgres:// URL (default: $MFA_STORE).", valueName: "location"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp(
        "The master key file (default: $MFA_MASTER_KEY, its text): 32 raw bytes, or one key per line as 64 hex "
            + "characters, <id>:<hex> or <id> <hex> (the PAM module's file reads as it is); the first key is "
            + "the current one, the others earlier keys.",
        valueName: "path"))
    var keyFile: String?

    @Option(name: .long, help: ArgumentHelp(
        "The id of a key the file gives without one (default: $MFA_MASTER_KEY_ID; the PAM module's is "
            + "its key_id=, \"pam\" unless set).", valueName: "id"))
    var keyID: String?

    @Option(name: .long, help: ArgumentHelp(
        "A file holding earlier keys, in the same form; repeat for several (also $MFA_PREVIOUS_KEYS, "
            + "id:hex,id:hex).",
        valueName: "path"))
    var previousKeyFile: [String] = []

    @OptionGroup var hsm: HSMOptions

    /// Opens a context on the store with the keys given, or with the HSM.
    func open() throws -> MFAContext {
        guard let location = store ?? Terminal.environment("MFA_STORE") else {
            throw Failure("no store: give --store or set MFA_STORE", status: ExitStatus.usage)
        }
        if let provider = try hsm.provider() {
            guard keyFile == nil, previousKeyFile.isEmpty else {
                throw Failure("give --hsm-module or --key-file, not both", status: ExitStatus.usage)
            }
            return try MFAContext(options: MFAOptions(store: location, keyProvider: provider))
        }
        var entries: [(entry: KeyFile.Entry, source: String)]
        if let keyFile {
            entries = try KeyFile.parse(Terminal.read(keyFile), from: "key file \(keyFile)")
                .map { ($0, "key file \(keyFile)") }
        } else if let text = Terminal.environment("MFA_MASTER_KEY") {
            entries = try KeyFile.parse(Array(text.utf8), from: "MFA_MASTER_KEY").map { ($0, "MFA_MASTER_KEY") }
        } else {
            throw Failure("no master key: give --key-file or set MFA_MASTER_KEY", status: ExitStatus.usage)
        }
        for path in previousKeyFile {
            entries += try KeyFile.parse(Terminal.read(path), from: "key file \(path)").map { ($0, "key file \(path)") }
        }
        if let list = Terminal.environment("MFA_PREVIOUS_KEYS") {
            for item in list.split(separator: ",") {
                entries += try KeyFile.parse(Array(item.utf8), from: "MFA_PREVIOUS_KEYS").map { ($0, "MFA_PREVIOUS_KEYS") }
            }
        }
        let defaultID = keyID ?? Terminal.environment("MFA_MASTER_KEY_ID")
        var keys: [MasterKey] = []
        for (entry, source) in entries {
            guard let id = entry.id ?? defaultID else {
                throw Failure("""
                    a key in \(source) has no id: write it as <id>:<hex>, or give --key-id (for the PAM module's \
                    key file, its key_id=: --key-id pam unless set)
                    """, status: ExitStatus.usage)
            }
            guard !keys.contains(where: { $0.id == id }) else {
                throw Failure("the key id \(id) is given twice (\(source))", status: ExitStatus.usage)
            }
            keys.append(try MasterKey(id: id, bytes: entry.key))
        }
        let keyring = try MasterKeyring(current: keys[0], previous: Array(keys.dropFirst()))
        return try MFAContext(options: MFAOptions(store: location, keyring: keyring))
    }
}

/// `--json`, and who is acting.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON instead of tables (one object per line for streams).")
    var json = false
}

/// Who runs an administrative command, for the audit events.
struct ActorOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Who is acting, recorded in the audit events (default: mfactl:$USER).", valueName: "name"))
    var actor: String?

    var name: String { actor ?? "mfactl:" + (Terminal.environment("USER") ?? Terminal.realUserName ?? "unknown") }
}

/// A tenant option.
struct TenantOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The tenant (default: the project).", valueName: "tenant"))
    var tenant: String?
}
