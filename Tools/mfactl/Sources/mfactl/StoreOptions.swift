import ArgumentParser
import MFA

/// Where the store is and how to open it: the same store location and
/// master keys as the library's `MFAOptions`.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The store: an SQLite file or a postgres:// URL (default: $MFA_STORE).", valueName: "location"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp(
        "A file holding the current master key: 64 hex characters, or <id>:<64 hex> (default: $MFA_MASTER_KEY).",
        valueName: "path"))
    var keyFile: String?

    @Option(name: .long, help: ArgumentHelp(
        "The current key's id, if the key does not carry it (default: $MFA_MASTER_KEY_ID).", valueName: "id"))
    var keyID: String?

    @Option(name: .long, help: ArgumentHelp(
        "A file holding an earlier key as <id>:<64 hex>; repeat for several (also $MFA_PREVIOUS_KEYS, id:hex,id:hex).",
        valueName: "path"))
    var previousKeyFile: [String] = []

    /// Opens a context on the store with the keys given.
    func open() throws -> MFAContext {
        guard let location = store ?? Terminal.environment("MFA_STORE") else {
            throw Failure("no store: give --store or set MFA_STORE", status: ExitStatus.usage)
        }
        let current: (id: String?, key: [UInt8])
        if let keyFile {
            current = try Self.parseKey(Terminal.readText(keyFile), from: keyFile)
        } else if let text = Terminal.environment("MFA_MASTER_KEY") {
            current = try Self.parseKey(text, from: "MFA_MASTER_KEY")
        } else {
            throw Failure("no master key: give --key-file or set MFA_MASTER_KEY", status: ExitStatus.usage)
        }
        guard let id = current.id ?? keyID ?? Terminal.environment("MFA_MASTER_KEY_ID") else {
            throw Failure("the master key has no id: write it as <id>:<hex>, or give --key-id", status: ExitStatus.usage)
        }
        var previous: [MasterKey] = []
        var texts: [(String, String)] = try previousKeyFile.map { (try Terminal.readText($0), $0) }
        if let list = Terminal.environment("MFA_PREVIOUS_KEYS") {
            texts += list.split(separator: ",").map { (String($0), "MFA_PREVIOUS_KEYS") }
        }
        for (text, source) in texts {
            let key = try Self.parseKey(text, from: source)
            guard let keyID = key.id else {
                throw Failure("an earlier key in \(source) has no id: write it as <id>:<hex>", status: ExitStatus.usage)
            }
            previous.append(try MasterKey(id: keyID, bytes: key.key))
        }
        let keyring = try MasterKeyring(current: MasterKey(id: id, bytes: current.key), previous: previous)
        return try MFAContext(options: MFAOptions(store: location, keyring: keyring))
    }

    /// `<hex>` or `<id>:<hex>`, surrounding white space ignored.
    static func parseKey(_ text: String, from source: String) throws -> (id: String?, key: [UInt8]) {
        let trimmed = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" })
        guard trimmed.count == 1 else {
            throw Failure("\(source) must hold one key: 64 hex characters or <id>:<64 hex>", status: ExitStatus.usage)
        }
        let parts = trimmed[0].split(separator: ":", maxSplits: 1)
        let hex = parts.count == 2 ? parts[1] : parts[0]
        guard let key = Self.hex(hex), key.count == MasterKey.byteCount else {
            throw Failure("\(source) does not hold a key of 64 hex characters", status: ExitStatus.usage)
        }
        return (parts.count == 2 ? String(parts[0]) : nil, key)
    }

    static func hex(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 97...102: c - 87
        case 65...70: c - 55
        default: nil
        }
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
