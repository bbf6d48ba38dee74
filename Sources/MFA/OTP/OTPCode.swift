/// Turning OTP values into digit strings and back, and comparing them.
package enum OTPCode {
    /// `value` reduced to `digits` digits. The divisors are constants in
    /// each branch, so the compiler multiplies instead of dividing: this runs
    /// at the end of every verification's critical path.
    @inline(__always)
    static func reduce(_ value: UInt32, digits: Int) -> UInt32 {
        switch digits {
        case 6: value % 1_000_000
        case 7: value % 10_000_000
        default: value % 100_000_000
        }
    }

    /// Parses a code typed by a user: exactly `digits` ASCII digits, nothing else.
    /// Returns nil for anything else (a malformed code is simply a wrong code).
    package static func parse(_ text: UnsafeRawBufferPointer, digits: Int) -> UInt32? {
        guard text.count == digits else { return nil }
        var value: UInt32 = 0
        for byte in text {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value &* 10 &+ UInt32(byte &- 0x30)
        }
        return value
    }

    /// Parses a code held in a Swift string.
    static func parse(_ text: String, digits: Int) -> UInt32? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0), digits: digits) }
    }

    /// Compares two code values without a data-dependent branch.
    @inline(__always)
    static func equal(_ a: UInt32, _ b: UInt32) -> Bool {
        let difference = UInt64(a ^ b)
        return (difference &- 1) >> 63 == 1
    }

    /// Writes `value` as exactly `digits` ASCII digits, zero-padded, into `out`
    /// (which must hold at least `digits` bytes).
    package static func write(_ value: UInt32, digits: Int, into out: UnsafeMutableRawBufferPointer) {
        var rest = value
        var index = digits - 1
        while index >= 0 {
            out[index] = UInt8(0x30 + rest % 10)
            rest /= 10
            index -= 1
        }
    }

    /// `value` as a zero-padded digit string.
    static func string(_ value: UInt32, digits: Int) -> String {
        String(unsafeUninitializedCapacity: digits) { buffer in
            write(value, digits: digits, into: UnsafeMutableRawBufferPointer(buffer))
            return digits
        }
    }
}
