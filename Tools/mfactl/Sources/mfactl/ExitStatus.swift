import ArgumentParser
import MFA

/// mfactl's exit statuses (see the root command's discussion).
enum ExitStatus {
    static let partial: Int32 = 1
    static let usage: Int32 = 64
    static let invalidData: Int32 = 65
    static let notFound: Int32 = 66
    static let unavailable: Int32 = 69
    static let storeError: Int32 = 74
    static let keyError: Int32 = 77
    static let interrupted: Int32 = 130

    /// The status for a library error.
    static func of(_ error: MFAError) -> Int32 {
        switch error.code {
        case .mfaEnrollmentNotFound, .deviceNotFound, .tokenNotFound: notFound
        case .storageError: storeError
        case .crypto, .keyMismatch, .pskcKeyMismatch, .keyProviderLogin, .keyProviderKeyNotFound: keyError
        case .keyProviderUnavailable: unavailable
        case .invalidArgument, .invalidURI, .invalidBase32, .secondFactorLimitExceeded, .secondFactorExists,
             .invalidPSKC, .invalidVerificationCode: invalidData
        default: storeError
        }
    }
}

/// A failure mfactl reports with a message and a status.
struct Failure: Error, CustomStringConvertible {
    let message: String
    let status: Int32

    init(_ message: String, status: Int32) {
        self.message = message
        self.status = status
    }

    var description: String { message }
}

/// Runs `body`, turning library errors and mfactl failures into a message
/// on stderr and the matching exit status.
func running(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as MFAError {
        Terminal.error("mfactl: \(error.code.name): \(error.message)")
        if error.code == .keyMismatch {
            Terminal.error("""
                mfactl: the master key given (--key-file, or MFA_MASTER_KEY) is not the key this store was \
                written with: nothing was read or changed. Give the store's own key file (the PAM module's is \
                /etc/libmfa/pam.key unless its key_file= says otherwise).
                """)
        }
        throw ExitCode(ExitStatus.of(error))
    } catch let failure as Failure {
        Terminal.error("mfactl: \(failure.message)")
        throw ExitCode(failure.status)
    }
}
