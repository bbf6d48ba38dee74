import MFA
import Testing

/// Enrollment ids that keep a user's factors of one second in enrollment order.
@Suite("Enrollment order within a second")
struct EnrollmentOrderTests {
    private static let characters = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")

    /// A 28-character id from a seeded generator (a test, not a secret).
    private static func id(_ state: inout UInt64, first: Character? = nil) -> String {
        var out = ""
        for index in 0..<28 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            out.append(index == 0 && first != nil ? first! : characters[Int(state % 64)])
        }
        return out
    }

    private static func factor(_ id: String, at time: Int64) -> FactorRecord {
        FactorRecord(enrollmentID: id, tenant: "", uid: "alice", factorID: "totp", displayName: nil, enrolledAt: time,
                     keyID: "k", sealed: [])
    }

    @Test("a derived id sorts after the floor, keeps the id's length and alphabet, never begins with -")
    func derived() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for round in 0..<4000 {
            // Floors of every first character, 'z' and "zz" among them.
            let floor = Self.id(&state, first: Self.characters[round % 64])
            let random = Self.id(&state)
            let made = EnrollmentOrder.after(floor, random: random)
            #expect(made > floor && made.utf8.count == 28 && !made.hasPrefix("-"))
            #expect(made.allSatisfy { Self.characters.contains($0) })
        }
        let zz = "zz" + String(repeating: "A", count: 26)
        let made = EnrollmentOrder.after(zz, random: String(repeating: "B", count: 28))
        #expect(made > zz && made.hasPrefix("zz") && made.utf8.count == 28)
        // All of the greatest character: an id one longer still sorts after it.
        let top = String(repeating: "z", count: 28)
        #expect(EnrollmentOrder.after(top, random: String(repeating: "B", count: 28)) > top)
    }

    @Test("most of a derived id stays random: two derivations from one floor differ")
    func random() {
        var state: UInt64 = 42
        let floor = "y" + String(repeating: "0", count: 27)
        let a = EnrollmentOrder.after(floor, random: Self.id(&state))
        let b = EnrollmentOrder.after(floor, random: Self.id(&state))
        #expect(a != b && a.dropFirst() != b.dropFirst())
    }

    @Test("enrollment_order_busy_second: 1,000 ids of one user in one second stay unique and mostly random")
    func busySecond() {
        // Recovery codes regenerated in a loop: each id must sort after the last.
        // A raise to a random greater character used up the id in about 170 steps
        // (all 'z'), and two users' ids then met (UNIQUE constraint failed).
        var seen = Set<String>()
        for seed: UInt64 in [3, 5] {
            var state = seed
            var floor = Self.id(&state)
            seen.insert(floor)
            for _ in 0..<1000 {
                let random = Self.id(&state)
                let made = EnrollmentOrder.after(floor, random: random)
                #expect(made > floor && made.utf8.count == 28)
                #expect(made.suffix(20) == random.suffix(20))
                #expect(seen.insert(made).inserted)
                floor = made
            }
        }
    }

    @Test("only the factors of the same second count; an id already last is kept")
    func siblings() {
        var state: UInt64 = 7
        let high = "y" + Self.id(&state).dropFirst(), low = "B" + Self.id(&state).dropFirst()
        // A later id of the same second is kept as drawn.
        #expect(EnrollmentOrder.id(high, after: [Self.factor(low, at: 100)], at: 100) == high)
        // Another second's ids do not count.
        #expect(EnrollmentOrder.id(low, after: [Self.factor(high, at: 99)], at: 100) == low)
        #expect(EnrollmentOrder.id(low, after: [], at: 100) == low)
        // The same second's: the new id sorts after all of them.
        var siblings = [Self.factor(high, at: 100)]
        for _ in 0..<20 {
            let made = EnrollmentOrder.id(Self.id(&state), after: siblings, at: 100)
            #expect(siblings.allSatisfy { made > $0.enrollmentID })
            siblings.append(Self.factor(made, at: 100))
        }
        #expect(Set(siblings.map(\.enrollmentID)).count == 21)
    }
}
