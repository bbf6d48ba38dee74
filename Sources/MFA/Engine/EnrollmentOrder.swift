/// Keeps a user's factors in the order they were enrolled.
///
/// A user's factors are listed (hints, `enrolledFactors`, the admin API,
/// mfactl) by enrollment time in seconds, then by enrollment id. Ids are
/// random, so two factors enrolled in the same second would list in a
/// random order; an id made here sorts after the ids of the user's factors
/// enrolled in that second, so the second one lists second.
///
/// The id is derived from a random one the caller drew beforehand (no
/// random source is called here, so that it can run inside a transaction).
/// When the random id already sorts last it is kept as it is; otherwise
/// it takes the last id's first characters up to the first one it can
/// raise, a greater character there, and the random id's characters after
/// it: at least 26 of its 28 characters stay random in all but a 1 in 64^2
/// case, far more than uniqueness needs.
///
/// Two enrollments of one user in the same second from two servers at
/// once may still list in either order: each sees only what was stored
/// before it.
package enum EnrollmentOrder {
    /// The characters of an enrollment id (URL-safe base64), in byte order.
    private static let ordered = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)

    /// `random` (a new id of `ordered` characters) or an id derived from
    /// it, sorting after every id of `siblings` enrolled at `now`.
    package static func id(_ random: String, after siblings: [FactorRecord], at now: Int64) -> String {
        let floor = siblings.lazy.filter { $0.enrolledAt == now }.map(\.enrollmentID).max()
        guard let floor, random <= floor else { return random }
        return after(floor, random: random)
    }

    /// An id greater than `floor` (byte order) and not beginning with `-`:
    /// as long as `random`, with `random`'s characters after the one raised.
    package static func after(_ floor: String, random: String) -> String {
        let low = Array(floor.utf8), fresh = Array(random.utf8)
        for index in 0..<min(low.count, fresh.count) {
            let above = ordered.filter { $0 > low[index] && (index > 0 || $0 != UInt8(ascii: "-")) }
            guard !above.isEmpty else { continue }
            var out = Array(low[..<index])
            out.append(above[Int(fresh[index]) % above.count])
            out.append(contentsOf: fresh[(index + 1)...])
            return String(decoding: out, as: UTF8.self)
        }
        // No character of `floor` within `random`'s length can be raised (it is
        // all `z`, which no id this library makes is): `floor` extended sorts after it.
        return floor + random
    }
}
