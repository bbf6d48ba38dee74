import Foundation
import MFA

/// One line of Tests/vectors/otp_vectors.txt.
enum Vector: Sendable {
    case hotp(algorithm: OTPAlgorithm, key: [UInt8], counter: UInt64, digits: Int, code: String)
    case totp(algorithm: OTPAlgorithm, key: [UInt8], time: Int64, digits: Int, code: String)
    case base32(plain: [UInt8], encoded: String)

    /// Every vector in the shared file.
    static let all: [Vector] = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../vectors/otp_vectors.txt").path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> Vector? in
            let f = line.split(separator: " ").map(String.init)
            guard let kind = f.first, !kind.hasPrefix("#") else { return nil }
            switch kind {
            case "hotp":
                return .hotp(algorithm: OTPAlgorithm(name: f[1])!, key: Array(f[2].utf8),
                             counter: UInt64(f[3])!, digits: Int(f[4])!, code: f[5])
            case "totp":
                return .totp(algorithm: OTPAlgorithm(name: f[1])!, key: Array(f[2].utf8),
                             time: Int64(f[3])!, digits: Int(f[4])!, code: f[5])
            default:
                return .base32(plain: f[1] == "-" ? [] : Array(f[1].utf8), encoded: f[2] == "-" ? "" : f[2])
            }
        }
    }()
}
