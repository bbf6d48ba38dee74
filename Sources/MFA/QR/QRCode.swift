import CQRencode
import Glibc

/// A QR code symbol: a square of dark and light modules, for example an
/// `otpauth://` key URI that an authenticator app scans during TOTP enrollment.
///
/// libqrencode builds the symbol in 8-bit (byte) mode, choosing the smallest
/// version (size) that holds the text at the asked error correction level.
/// Render it with ``png(scale:border:)``, ``svg(scale:border:)`` or
/// ``terminalText(border:inverted:)``.
///
/// The symbol carries its text, which for a key URI includes the shared
/// secret: treat the value and every rendering of it as secret.
public struct QRCode: Sendable, Equatable {
    /// How much of the symbol may be damaged and still be read; higher levels
    /// need a bigger symbol for the same text.
    ///
    /// The raw values are libqrencode's `QR_ECLEVEL_*` (0 to 3).
    public enum ErrorCorrection: Int32, Sendable, CaseIterable {
        /// About 7% of the codewords can be restored.
        case low = 0
        /// About 15% of the codewords can be restored; the usual choice.
        case medium = 1
        /// About 25% of the codewords can be restored.
        case quartile = 2
        /// About 30% of the codewords can be restored.
        case high = 3
    }

    /// The most bytes any QR code holds in 8-bit mode (version 40, low error
    /// correction); higher levels hold less (medium 2331, quartile 1663, high 1273).
    public static let maxInputBytes = 2953

    /// The accepted pixel sizes of one module for ``png(scale:border:)`` and ``svg(scale:border:)``.
    public static let scaleRange = 1...32

    /// The accepted quiet-zone widths, in modules, for every rendering.
    /// The QR specification asks for 4; many readers manage with 2.
    public static let borderRange = 0...16

    /// The number of modules per side, without the quiet zone: 21 (version 1) to 177 (version 40).
    public let size: Int

    /// The QR version, 1 to 40; ``size`` is `17 + 4 * version`.
    public let version: Int

    /// The error correction level the symbol was built with.
    public let errorCorrection: ErrorCorrection

    /// The modules, row by row from the top, each row left to right;
    /// `true` is dark. It holds `size * size` values.
    public let modules: [Bool]

    /// Encodes `text` (its UTF-8 bytes, in 8-bit mode) as a QR code.
    /// - Parameters:
    ///   - text: what to encode, usually an `otpauth://` key URI; 1 to
    ///     ``maxInputBytes`` UTF-8 bytes, without NUL characters.
    ///   - errorCorrection: the error correction level; `.medium` by default.
    /// - Throws: `invalidArgument` for empty text, text with a NUL character or
    ///   text too long for a QR code at this level; `outOfMemory` if
    ///   libqrencode could not allocate; `internal` for any other libqrencode failure.
    ///   Error messages never include the text.
    public init(encoding text: String, errorCorrection: ErrorCorrection = .medium) throws(MFAError) {
        let byteCount = text.utf8.count
        guard byteCount > 0 else { throw MFAError(.invalidArgument, "the QR code text is empty") }
        guard !text.utf8.contains(0) else {
            throw MFAError(.invalidArgument, "the QR code text contains a NUL character")
        }
        guard byteCount <= QRCode.maxInputBytes else {
            throw MFAError(.invalidArgument, "the QR code text is \(byteCount) bytes; a QR code holds at most \(QRCode.maxInputBytes)")
        }
        let level = errorCorrection.qrencodeLevel
        errno = 0
        let encoded = text.withCString { QRcode_encodeString8bit($0, 0, level) }
        guard let encoded else {
            switch errno {
            case ERANGE:
                throw MFAError(.invalidArgument, "the QR code text (\(byteCount) bytes) is too long for error correction level \(errorCorrection)")
            case ENOMEM:
                throw MFAError(.outOfMemory, "libqrencode could not allocate the QR code")
            default:
                throw MFAError(.internal, "libqrencode failed (errno \(errno))")
            }
        }
        defer { QRcode_free(encoded) }

        let width = Int(encoded.pointee.width)
        guard (21...177).contains(width), let data = encoded.pointee.data else {
            throw MFAError(.internal, "libqrencode returned a malformed symbol")
        }
        // Bit 0 of each byte is the module's colour; the other bits describe its role.
        let cells = UnsafeBufferPointer(start: data, count: width * width)
        size = width
        version = Int(encoded.pointee.version)
        self.errorCorrection = errorCorrection
        modules = cells.map { $0 & 1 != 0 }
    }

    /// Whether the module at column `x`, row `y` is dark.
    /// - Parameters:
    ///   - x: the column, 0 at the left.
    ///   - y: the row, 0 at the top.
    /// - Returns: `true` for a dark module; `false` for a light one and for any
    ///   position outside the symbol (the quiet zone around it is light).
    public func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }
}

extension QRCode.ErrorCorrection {
    /// libqrencode's constant for this level.
    var qrencodeLevel: QRecLevel {
        switch self {
        case .low: QR_ECLEVEL_L
        case .medium: QR_ECLEVEL_M
        case .quartile: QR_ECLEVEL_Q
        case .high: QR_ECLEVEL_H
        }
    }
}
