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
/// it takes the last id's first eight characters with the last of them
/// that can be raised raised to the next character (a counter, carrying
/// leftwards), and the random id's characters after that one: at least 20
/// of its 28 characters are the random id's, however many ids one user
/// makes in one second (recovery codes regenerated in a loop). Raising the
/// first character that can be raised to a random greater one instead used
/// the id up in about 170 ids of one second, and two users' ids then met.
///
/// Two enrollments of one user in the same second from two servers at
/// once may still list in either order: each sees only what was stored
/// before it.
package enum EnrollmentOrder {
    /// How many of an id's first characters count up when ids of one second follow each other.
    private static let counterLength = 8

    /// The characters of an enrollment id (URL-safe base64), in byte order.
    private static let ordered = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)

    /// `random` (a new id of `ordered` characters) or an id derived from
    /// it, sorting after every id of `siblings` enrolled at `now`.
    package static func id(_ random: String, after siblings: [FactorRecord], at now: Int64) -> String {
        let floor = siblings.lazy.filter { $0.enrolledAt == now }.map(\.enrollmentID).max()
        guard let floor, random <= floor else { return random }
        return after(floor, random: random)
    }

    /// An id greater than `floor` (byte order) and not beginning with `-`
    /// (no character is raised to `-`): as long as `random`, with `random`'s
    /// characters after the one raised.
    package static func after(_ floor: String, random: String) -> String {
        let low = Array(floor.utf8), fresh = Array(random.utf8)
        let length = min(low.count, fresh.count), counter = min(counterLength, length)
        // The counter's last character that can be raised, then any after it
        // (the first one, if it is `-`: a derived id never begins with it).
        let leading = low.first == UInt8(ascii: "-") ? [0] : []
        for index in leading + Array((0..<counter).reversed()) + Array(counter..<length) {
            guard let next = ordered.first(where: { $0 > low[index] }) else { continue }
            var out = Array(low[..<index])
            out.append(next)
            out.append(contentsOf: fresh[(index + 1)...])
            return String(decoding: out, as: UTF8.self)
        }
        // No character of `floor` within `random`'s length can be raised (it is
        // all `z`, which no id this library makes is): `floor` extended sorts after it.
        return floor + random
    }
}
