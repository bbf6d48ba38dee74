import ArgumentParser
import MFA

/// The HSM holding the key that wraps the store's data keys (PKCS#11), in
/// place of a key file. The PIN comes from a file or the environment, never
/// from the command line.
struct HSMOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The HSM's PKCS#11 module, instead of a key file (default: $MFA_HSM_MODULE).", valueName: "path"))
    var hsmModule: String?

    @Option(name: .long, help: ArgumentHelp("The label of the HSM's token (default: $MFA_HSM_TOKEN).",
                                            valueName: "label"))
    var hsmToken: String?

    @Option(name: .long, help: ArgumentHelp("The slot id of the HSM's token, instead of its label.", valueName: "id"))
    var hsmSlot: UInt?

    @Option(name: .long, help: ArgumentHelp(
        "The label of the AES key that wraps new data keys (default: $MFA_HSM_KEY).", valueName: "label"))
    var hsmKey: String?

    @Option(name: .long, help: ArgumentHelp("A file whose first line is the token's user PIN.", valueName: "path"))
    var hsmPinFile: String?

    @Option(name: .long, help: ArgumentHelp(
        "The environment variable holding the PIN (default: MFA_HSM_PIN when no PIN file is given).",
        valueName: "name"))
    var hsmPinEnv: String?

    /// The PKCS#11 provider the options (or the environment) name, or nil.
    func provider() throws -> PKCS11KeyProvider? {
        guard let module = hsmModule ?? Terminal.environment("MFA_HSM_MODULE") else {
            guard hsmToken == nil, hsmSlot == nil, hsmKey == nil, hsmPinFile == nil, hsmPinEnv == nil else {
                throw Failure("the --hsm-* options need --hsm-module (or MFA_HSM_MODULE)", status: ExitStatus.usage)
            }
            return nil
        }
        let token: PKCS11KeyProvider.Token
        if let slot = hsmSlot {
            guard hsmToken == nil else { throw Failure("give --hsm-token or --hsm-slot, not both", status: ExitStatus.usage) }
            token = .slot(slot)
        } else if let label = hsmToken ?? Terminal.environment("MFA_HSM_TOKEN") {
            token = .label(label)
        } else {
            throw Failure("name the HSM's token: --hsm-token or --hsm-slot", status: ExitStatus.usage)
        }
        guard let key = hsmKey ?? Terminal.environment("MFA_HSM_KEY") else {
            throw Failure("name the HSM's key: --hsm-key (or MFA_HSM_KEY)", status: ExitStatus.usage)
        }
        guard hsmPinFile == nil || hsmPinEnv == nil else {
            throw Failure("give --hsm-pin-file or --hsm-pin-env, not both", status: ExitStatus.usage)
        }
        let pin = try hsmPinFile.map { try PKCS11PIN.fromFile($0) }
            ?? PKCS11PIN.fromEnvironment(hsmPinEnv ?? "MFA_HSM_PIN")
        return try PKCS11KeyProvider(module: module, token: token, keyLabel: key, pin: pin)
    }
}
