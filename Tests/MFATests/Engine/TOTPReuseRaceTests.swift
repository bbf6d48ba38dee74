import Foundation
import MFA
import Synchronization
import Testing

/// Regression test for issue 8, item 16: "under an 8-thread race on one TOTP
/// factor (about 11,000 rounds), a code value already accepted was accepted
/// again in 9 rounds, matched at a later step; by chance that should happen
/// about 0.05 times".
///
/// Finding: chance, counted against the wrong expectation. libmfa never
/// accepts a value at a step whose TOTP value it is not, and never claims a
/// step twice (measured when the issue was investigated: the batch MAC
/// against the single-step MAC and swift-crypto's HMAC-SHA1 for every batch
/// size 1...21, 4.6 million lanes; OTPCode.reduce for every UInt32; nine
/// 8-thread races of 11,000 rounds on SQLite and PostgreSQL, every win
/// checked against Python's hmac: no mismatch anywhere). A value
/// accepted before wins again in two ways, both legitimate: the value *is*
/// the TOTP value of the later step it wins.
///
/// A step's value is its 31-bit truncation mod 10^6; 2^31 = 2147·10^6 +
/// 483,648, so each value has probability 2147/2^31 or 2148/2^31, within
/// 0.05% of 10^-6. Below, p = 10^-6 and W = adjacentIntervals = 5.
///
/// 1. Resubmission. Once value v has won step s (last_step = s), sending v
///    again while the clock is in step c ≥ s can only win one of the steps
///    s+1 ... c+W, if one of them has the value v: p_round ≈ (c+W−s)·p, 5·10^-6
///    for c = s. In an 8-thread round this happens *inside* the round: the
///    seven threads behind the winner are resubmissions, but they test the
///    same steps against the same value, so the round's chance of a second
///    win is still 1 − (1 − p)^5 ≈ 5·10^-6, not seven times that. This is
///    the expectation: 11,000 × 5·10^-6 = 0.055, a Poisson count with
///    P(N ≥ 1) = 5.4% and P(N ≥ 9) = e^-0.055 · 0.055^9 / 9! ≈ 10^-17: nine
///    of these would be a defect. Measured, 10^8 resubmissions (release
///    build, clock 0...5 steps past s) won 786 times against 750 expected
///    (+1.3σ), every one at a step whose value is v.
///
/// 2. A fresh step whose value equals an earlier accepted one (a birthday
///    coincidence). When the rounds move across many steps (an injected
///    clock, or a long run), a round's code is the value of a new step, and a
///    harness that remembers every value accepted so far calls it "already
///    accepted" when it equals any of them. The k-th accepted step matches
///    one of the k−1 before it with p ≈ (k−1)·10^-6, so over n accepted steps
///    the count is close to Poisson with mean n(n−1)/2 · 10^-6:
///      n = 11,000 (every round a new step)   → 60.5
///      n =  6,900 (clock +0...40 s a round)  → 23.8
///      n =  4,240                            →  9.0
///    Nine fits a run that accepted about 2,900 to 5,900 distinct steps (the
///    95% interval for a Poisson mean given 9 events is 4.1 ... 17.1, and
///    n ≈ √(2λ·10^6)). The experiment's C harness (8 threads, 11,000
///    rounds, clock +0...40 s a round) saw 22 and 23 such rounds on SQLite
///    and 29 on PostgreSQL, against 23.8, 23.6 and 23.2 expected.
///
/// (A third coincidence, a round's own value also being the value of another
/// step in its ±W window, has p ≈ 2W·10^-6 a round: 0.11 in 11,000 rounds.)
///
/// Kind 1 is allowed by replay protection that only refuses steps at or
/// before the last accepted one, but not by a strict reading of RFC 6238
/// §5.2 (the verifier "MUST NOT accept the second attempt of the OTP"). Since
/// this investigation, a sign-in claims the step nearest to now that the code
/// matches and never looks past it: a value that matches the step already
/// claimed is refused even when a later step has the same value, so kind 1
/// no longer happens (a real user whose next step shares the value is
/// refused at the same 5·10^-6 rate, and types the next code). Kind 2 is a
/// new step whose value it is, and is accepted.
///
/// So the test checks what holds whatever the count: in 8-thread rounds,
/// every win is the one the code allows, computed independently of the
/// verifier's batch MAC (step by step, nearest first, won only if after the
/// last accepted step), at most one per round; kind 2 occurs where the RFC
/// 4226 secret makes it occur (steps 60,001,231 and 60,001,472 share the
/// value 326601), and kind 1 is refused where it would occur (60,138,748 and
/// +3 share 217436, 60,199,880 and +4 share 262910).
@Suite("Regression: TOTP code reuse under an 8-thread race is chance, never replay")
struct TOTPReuseRaceTests {
    static let secret = Array("12345678901234567890".utf8)
    static let period: Int64 = 30
    static let window = 5
    static let threads = 8

    @Test("test_regression_totp_code_reuse_under_race: a value wins again only at a later step whose value it is",
          arguments: StoreKind.available)
    func regressionTOTPCodeReuseUnderRace(_ kind: StoreKind) throws {
        let race = try TOTPRace(kind)
        defer { race.close() }
        let totp = try TOTP(secret: Self.secret)

        // Kind 2: a fresh step's code is a value accepted 241 steps before.
        try race.at(step: 60_001_231)
        let shared = try totp.code(at: race.clock.now())
        #expect(shared == "326601")
        #expect(try race.round(shared) == [60_001_231])
        try race.at(step: 60_001_472)
        #expect(try totp.code(at: race.clock.now()) == shared)
        #expect(try race.round(shared) == [60_001_472], "the fresh step's code is the value accepted before")

        // Kind 1, in a later round: one thread wins step 60,138,748; the same
        // value, sent again by eight threads in the same step, is refused,
        // although step 60,138,751 (inside the ±5 window) has it too.
        try race.at(step: 60_138_748)
        let value = try totp.code(at: race.clock.now())
        #expect(value == "217436")
        #expect(try totp.code(at: (60_138_748 + 3) * Self.period) == value)
        #expect(try race.round(value, threads: 1) == [60_138_748])
        #expect(try race.round(value) == [], "a value accepted once is refused, whichever later step has it")
        // Later steps with other values are open.
        #expect(try race.round(totp.code(at: (60_138_748 + 2) * Self.period)) == [60_138_750])
        #expect(try race.round(totp.code(at: (60_138_748 + 4) * Self.period)) == [60_138_752])

        // Kind 1, inside one 8-thread round: the winner takes 60,199,880; the
        // seven behind it are refused, although 60,199,884 has the same value.
        try race.at(step: 60_199_880)
        let twice = try totp.code(at: race.clock.now())
        #expect(twice == "262910")
        #expect(try totp.code(at: (60_199_880 + 4) * Self.period) == twice)
        #expect(try race.round(twice) == [60_199_880], "one win a round")
        #expect(try race.round(twice) == [])

        // Rounds on a moving clock (0 to 40 s a round, seeded): every round's
        // wins are the independent model's.
        var random = SeededRandom(seed: 16)
        var wins = 0
        for _ in 0..<120 {
            race.clock.advance(Int64(random.next() % 41))
            wins += try race.round(totp.code(at: race.clock.now())).count
        }
        #expect(wins > 60)
    }

    @Test("the batch MAC matches the step-by-step codes for every batch size 1...20 and position")
    func batchMatchesSingleSteps() throws {
        var random = SeededRandom(seed: 8)
        for keyLength in [10, 20, 32, 63, 64, 65, 128] {
            let key = (0..<keyLength).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let totp = try TOTP(secret: key, period: 1)
            for center in [Int64(0), 1, 3, 5, 9, 10, 11, 1_000_000_007] {
                // Each step's code once, step by step (no batch).
                var codes: [Int64: String] = [:]
                for step in max(0, center - 10)...(center + 10) { codes[step] = try totp.code(at: step) }
                for window in 0...10 {
                    // Centers near 0 leave negative steps out, and `after`
                    // closes the low ones: every batch size from 1 to 20 occurs.
                    let low = max(0, center - Int64(window))
                    for after in [nil, low - 1, low, center - 1, center] as [Int64?] {
                        for target in low...(center + Int64(window)) {
                            let code = codes[target]!
                            let want = Self.firstMatch(code, center: center, window: window, after: after) {
                                codes[$0]!
                            }
                            #expect(try totp.verify(code, at: center, window: window, after: after) == want,
                                    "key \(keyLength) window \(window) center \(center) target \(target)")
                        }
                    }
                }
            }
        }
    }

    /// The step `code` must match at step `center`: the center, then -1, +1,
    /// -2, +2, ..., only after `after`, each compared with `codeAt(step)`.
    static func firstMatch<E: Error>(_ code: String, center: Int64, window: Int, after: Int64?,
                                     codeAt: (Int64) throws(E) -> String) throws(E) -> Int64? {
        var order = [center]
        for distance in 1...max(1, Int64(window)) where window > 0 {
            order += [center - distance, center + distance]
        }
        for step in order where step >= 0 && step > (after ?? -1) {
            if try codeAt(step) == code { return step }
        }
        return nil
    }
}

/// One factor on one store, raced by `TOTPReuseRaceTests.threads` threads,
/// each with a context of its own (like servers sharing the store).
final class TOTPRace: Sendable {
    let clock = TestClock()
    let contexts: [MFAContext]
    let enrollmentID: String
    static let uid = "alice"
    private let store: MFAStore
    private let location: String
    private let kind: StoreKind
    private let lastStep: Mutex<Int64> = Mutex(-1)

    init(_ kind: StoreKind) throws {
        let location = try kind.freshLocation(file: true)
        self.location = location
        self.kind = kind
        let config = """
            {"state":"ENABLED","providers":{"totp":"ENABLED"},\
            "totp":{"adjacentIntervals":\(TOTPReuseRaceTests.window)},"limits":{"freeAttempts":100,"failureMemory":60}}
            """
        var contexts: [MFAContext] = []
        for _ in 0..<TOTPReuseRaceTests.threads {
            var options = MFAOptions(store: location, keyring: try MasterKeyring(
                current: MasterKey(id: "k1", bytes: EngineFixture.keyBytes)))
            options.clock = clock
            contexts.append(try MFAContext(options: options))
        }
        self.contexts = contexts
        try contexts[0].setConfig(json: config)
        let user = MFAUser(uid: Self.uid, email: "alice@example.com", emailVerified: true, provider: "password",
                           authTime: clock.now())
        enrollmentID = try contexts[0].importTOTPFactor(for: user, totp: TOTP(secret: TOTPReuseRaceTests.secret),
                                                        displayName: nil).uid
        store = try MFAStore(database: kind == .sqlite ? SQLiteDatabase(path: location)
                                                       : PostgresDatabase(url: location))
    }

    func close() {
        for context in contexts { context.close() }
        store.database.close()
        if kind == .sqlite {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: location).deletingLastPathComponent().path)
        }
    }

    /// Moves the clock to the start of `step`.
    func at(step: Int64) throws {
        clock.advance(step * TOTPReuseRaceTests.period - clock.now())
    }

    /// One round: each of `threads` threads signs in for a pending credential
    /// of its own, then all send `code` at once. Checks that the wins are the
    /// model's: the step nearest to now that the code matches, won once if it
    /// is after the last claimed one; and that the store's last step is it.
    /// - Returns: the steps won, in order.
    func round(_ code: String, threads: Int = TOTPReuseRaceTests.threads) throws -> [Int64] {
        let now = clock.now()
        let last = lastStep.withLock { $0 }
        let totp = try TOTP(secret: TOTPReuseRaceTests.secret)
        var want: [Int64] = []
        if let step = try TOTPReuseRaceTests.firstMatch(
            code, center: now / TOTPReuseRaceTests.period, window: TOTPReuseRaceTests.window, after: nil,
            codeAt: { (step) throws(MFAError) in try totp.code(at: step * totp.period) }), step > last {
            want.append(step)
        }
        let user = MFAUser(uid: Self.uid, email: "alice@example.com", emailVerified: true, provider: "password",
                           authTime: now)
        let resolvers = try contexts.prefix(threads).map { (context) throws -> MultiFactorResolver in
            guard case .secondFactorRequired(let resolver) = try context.signIn(user) else {
                throw MFAError(.internal, "expected SECOND_FACTOR_REQUIRED")
            }
            return resolver
        }
        let assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: enrollmentID,
                                                                    oneTimePassword: code)
        let outcomes = RaceOutcomes(resolvers.count)
        RaceStartLine.run(resolvers.count) { index in
            outcomes.set(index, errorCode { try resolvers[index].resolveSignIn(with: assertion) })
        }
        let results = outcomes.all
        let wins = results.filter { $0 == nil }.count
        #expect(results.allSatisfy { $0 == nil || $0 == .invalidVerificationCode }, "\(results)")
        #expect(wins == want.count, "code \(code) at \(now): \(wins) wins, model \(want)")
        // The factor's last step: the one it was stored with, or the last one recorded in the user's row.
        let claimed = try store.database.read { (db) throws(MFAError) -> Int64? in
            guard let row = try db.query("""
                SELECT f.totp_last_step, u.consumed FROM mfa_factors f \
                LEFT JOIN mfa_users u ON u.tenant = f.tenant AND u.uid = f.uid WHERE f.enrollment_id = ?
                """, [.text(enrollmentID)]).first, let stored = row[0].int else { return nil }
            return max(stored, try ConsumedTokens(row[1]).lastStep(UsedStep.key(enrollmentID)) ?? -1)
        } ?? -2
        #expect(claimed == want.last ?? last, "code \(code) at \(now): last_step \(claimed), model \(want)")
        lastStep.withLock { $0 = claimed }
        return wins == want.count ? want : []
    }
}

/// What each thread of a round got: nil for a win, else the error code.
final class RaceOutcomes: Sendable {
    private let codes: Mutex<[MFAErrorCode?]>

    init(_ count: Int) { codes = Mutex(Array(repeating: .internal, count: count)) }

    var all: [MFAErrorCode?] { codes.withLock { $0 } }

    func set(_ index: Int, _ code: MFAErrorCode?) { codes.withLock { $0[index] = code } }
}

/// Threads released together: each spins on one flag (a semaphore would wake
/// them one after another, too slowly to overlap).
final class RaceStartLine: Sendable {
    private let go = Atomic<Bool>(false)
    private let ready = Atomic<Int>(0)
    private let done = Atomic<Int>(0)

    /// Runs `body(0 ..< count)` on `count` new threads at once; returns when all are done.
    static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let line = RaceStartLine()
        for index in 0..<count {
            Thread {
                line.ready.add(1, ordering: .releasing)
                while !line.go.load(ordering: .acquiring) { sched_yield() }
                body(index)
                line.done.add(1, ordering: .releasing)
            }.start()
        }
        while line.ready.load(ordering: .acquiring) < count { sched_yield() }
        line.go.store(true, ordering: .releasing)
        while line.done.load(ordering: .acquiring) < count { usleep(100) }
    }
}

/// A small seeded generator (SplitMix64), so that the moving-clock rounds are the same every run.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
