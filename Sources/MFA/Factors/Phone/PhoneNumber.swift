/// Strict E.164 phone numbers: `+`, then 7 to 15 digits, the first not 0.
///
/// No spaces, dashes, dots or brackets are accepted: a host normalises what
/// its users type before handing numbers to libmfa. (7 digits is the shortest
/// real international number: Niue and Saint Helena.)
public enum PhoneNumber {
    /// Whether `text` is a strict E.164 number.
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 8, bytes.count <= 16, bytes[0] == UInt8(ascii: "+"),
              bytes[1] != UInt8(ascii: "0") else { return false }
        return bytes.dropFirst().allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Throws `invalidPhoneNumber` unless `text` is strict E.164.
    public static func check(_ text: String) throws(MFAError) {
        guard isValid(text) else {
            throw MFAError(.invalidPhoneNumber, "phone numbers must be E.164: '+' then 7 to 15 digits")
        }
    }

    /// The number as shown in sign-in hints: the `+`, the first digit, one star
    /// per hidden digit, and the last four digits (`+15105551234` becomes
    /// `+1******1234`). The length stays visible; nothing else does.
    public static func masked(_ number: String) -> String {
        let digits = Array(number.utf8.dropFirst())
        guard digits.count > 5 else { return String(repeating: "*", count: number.utf8.count) }
        let hidden = digits.count - 5
        return "+" + String(decoding: digits.prefix(1), as: UTF8.self)
            + String(repeating: "*", count: hidden)
            + String(decoding: digits.suffix(4), as: UTF8.self)
    }
}
