import ArgumentParser
import MFA

/// `mfactl`: administers a libmfa store from a shell.
@main
struct MFACtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfactl",
        abstract: "Administer a libmfa store: configuration, users' factors and remembered devices, imports, "
            + "hardware tokens, key rotation, the audit trail.",
        discussion: """
            Every command opens the store given by --store (or MFA_STORE): an SQLite file or a \
            postgres:// URL, as the library takes it. The master key is read from a file \
            (--key-file) or from the MFA_MASTER_KEY environment variable, never from the command \
            line. A key file holds 32 raw bytes, or text: one key per line as 64 hexadecimal \
            characters, optionally preceded by the key id and a colon ("2026-11:0011...") or by the \
            id and a space ("2026-11 0011...", as the PAM module's file has it); the first key is \
            the current one, the others earlier keys. A key without an id takes --key-id (or \
            MFA_MASTER_KEY_ID): the PAM module's key file reads as it is with --key-id pam (or its \
            key_id= if the module's line sets one). More earlier keys: --previous-key-file or \
            MFA_PREVIOUS_KEYS ("id:hex,id:hex"). A store whose keys an HSM wraps is opened with \
            --hsm-module, --hsm-token (or --hsm-slot), --hsm-key and the PIN from --hsm-pin-file or \
            an environment variable (--hsm-pin-env, MFA_HSM_PIN by default) instead of a key file; \
            `mfactl keys rewrap --to LABEL` rotates the HSM key.

            Output is a table for people, or JSON with --json. Exit status: 0 done; 1 an import \
            left lines not imported (or found none to import), or `audit verify` found a chain broken; 64 usage error; \
            65 invalid data (a value the library refused); 66 not found; 69 not available (the store keeps no audit \
            trail; the HSM's module or token cannot be used); 74 store error; 77 key error (KEY_MISMATCH: the key \
            given is not the store's key of that id, or the HSM's key was replaced; the HSM refused the PIN or \
            holds no such key; or a record under a key not given, or that does not decrypt; a PSKC file's key or \
            password that does not open it); 130 interrupted (run \
            the command again to resume).
            """,
        version: "mfactl \(toolVersion)\nlibmfa \(MFAVersion.string)",
        subcommands: [
            ConfigCommand.self, UsersCommand.self, FactorsCommand.self, UserCommand.self, ImportCommand.self,
            DevicesCommand.self, TokensCommand.self, KeysCommand.self, PurgeCommand.self, AuditCommand.self,
            StatsCommand.self,
        ])

    /// mfactl's own version, which `--version` prints with the library's.
    static let toolVersion = "0.2.0"
}
