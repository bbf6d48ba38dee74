/// The last code pam_oath accepted for a factor, and when: its users file
/// keeps both after each login (`... 0 755224 2024-01-01T12:00:00L`).
///
/// libmfa refuses a code whose step is at or before the factor's last used
/// step. After the import, a code can only be accepted in a step within
/// libmfa's widest window of the time of the sign-in, which is the import's
/// time or later: ±10 steps (`totp.adjacentIntervals` is at most 10). So the
/// steps from 10 before to 10 after the import's time are searched for the
/// last code, and the highest that gives it becomes the factor's used step.
///
/// pam_oath writes the time in the server's local time, without its offset
/// from UTC; it is read here as if it were UTC, and since no offset is more
/// than 14 hours, a time more than 14 hours and 20 steps before the import
/// says the code is too old to be used again: nothing is searched.
struct OathLastUse {
    /// The code, as many digits as the token's.
    var code: String
    /// The time written beside it, read as if it were UTC (seconds since
    /// 1970), or nil when the line has none.
    var localTime: Int64?

    /// Steps searched on each side of the import's time.
    static let searchSteps: Int64 = 10
    /// The widest offset of a local time from UTC, in seconds.
    static let widestOffset: Int64 = 14 * 3600

    /// The step to count as used at `now` for a factor of `secret` and
    /// `parameters`, or nil if the code is too old or not found near `now`.
    /// At most 21 codes are computed per match, and at most 21 matches.
    func usedStep(_ secret: [UInt8], _ parameters: TOTPParameters, now: Int64) -> Int64? {
        guard let totp = try? TOTP(secret: secret, algorithm: parameters.algorithm, digits: parameters.digits,
                                   period: parameters.period),
              let current = try? totp.step(at: now) else { return nil }
        if let localTime {
            let latest = localTime.addingReportingOverflow(Self.widestOffset)
            if !latest.overflow, let latestStep = try? totp.step(at: max(latest.partialValue, 0)),
               latestStep + 2 * Self.searchSteps < current {
                return nil
            }
        }
        var found: Int64?
        for _ in 0...(2 * Self.searchSteps) {
            guard let step = try? totp.verify(code, at: now, window: Int(Self.searchSteps),
                                              after: found ?? current - Self.searchSteps - 1) else { break }
            found = step
        }
        return found
    }

    /// Seconds since 1970 of `YYYY-MM-DDThh:mm:ssL` (liboath's form), read
    /// as UTC; nil for anything else (a date that does not exist included).
    static func localTime(_ text: Substring) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              bytes[19] == UInt8(ascii: "L") else { return nil }
        func number(_ from: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[from..<(from + count)] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), hour < 24, minute < 60, second <= 60 else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day >= 1, day <= monthDays[Int(month - 1)] else { return nil }
        return daysSince1970(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    private static func daysSince1970(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        // Years counted from March, so that February's leap day ends a year.
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }
}
