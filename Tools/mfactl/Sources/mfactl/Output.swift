import MFA

/// Tables for people, JSON for scripts.
enum Output {
    /// Prints rows under headers, each column as wide as its widest cell.
    static func table(_ headers: [String], _ rows: [[String]]) {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var out = ""
            for (index, cell) in cells.enumerated() {
                let last = index == cells.count - 1
                out += last ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            return out
        }
        Terminal.out(line(headers))
        for row in rows { Terminal.out(line(row)) }
    }

    /// Prints one JSON value on one line.
    static func json(_ value: JSONValue) {
        Terminal.out(value.jsonText)
    }

    /// A string or null.
    static func string(_ value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }

    /// A factor as JSON; a WebAuthn factor with its credential's details under "webauthn".
    static func factor(_ info: MultiFactorInfo, tenant: String? = nil, uid: String? = nil,
                       webAuthn: WebAuthnCredentialInfo? = nil) -> JSONValue {
        var fields: [(String, JSONValue)] = []
        if let uid { fields += [("tenant", string(tenant)), ("uid", .string(uid))] }
        fields += [
            ("enrollmentId", .string(info.uid)), ("factorId", .string(info.factorID)),
            ("displayName", string(info.displayName)), ("enrolledAt", .int(info.enrollmentDate)),
            ("hint", .string(info.hint)),
        ]
        if let number = info.phoneNumber { fields.append(("phoneNumber", .string(number))) }
        if let address = info.email { fields.append(("email", .string(address))) }
        if let left = info.remainingCodes { fields.append(("remainingCodes", .int(Int64(left)))) }
        if let webAuthn { fields.append(("webauthn", credential(webAuthn))) }
        return .object(fields)
    }

    /// A WebAuthn credential's details: `passkey` (it signs in without a
    /// password), `backup` ("synced passkey" or "device-bound key"), the flags
    /// and how it was attested.
    static func credential(_ info: WebAuthnCredentialInfo) -> JSONValue {
        .object([
            ("passkey", .bool(info.isPasskey)), ("backup", .string(info.backup)),
            ("discoverable", info.discoverable.map(JSONValue.bool) ?? .null), ("userVerified", .bool(info.userVerified)),
            ("backupEligible", .bool(info.backupEligible)), ("backedUp", .bool(info.backedUp)),
            ("algorithm", .int(info.algorithm)), ("aaguid", .string(hex(info.aaguid))),
            ("transports", .array(info.transports.map(JSONValue.string))),
            ("attestationFormat", .string(info.attestationFormat)), ("attestationKind", .string(info.attestationKind)),
            ("lastUsedAt", .int(info.lastUsedAt)),
        ])
    }

    /// Bytes as lower-case hexadecimal.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// A factor as a table row: id, kind, name, enrolled, hint.
    static func factorRow(_ info: MultiFactorInfo) -> [String] {
        [info.uid, info.factorID, info.displayName ?? "-", date(info.enrollmentDate), info.hint]
    }

    /// A Unix time as `YYYY-MM-DD HH:MM:SS` UTC.
    static func date(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        // Civil date from days since 1970-01-01 (proleptic Gregorian).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60))"
    }

    /// A tenant for a table: "-" for the project.
    static func tenant(_ tenant: String?) -> String { tenant ?? "-" }

    /// A number with thousands separators.
    static func count(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (index, c) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }
}
