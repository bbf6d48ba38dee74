import Dispatch
import MFA
import Synchronization
import Testing

@Suite("SMS caps under a burst")
struct PhoneBurstTests {
    @Test("1,000 send requests from 8 threads: exactly the caps reach the sender", arguments: StoreKind.available)
    func burst(_ kind: StoreKind) throws {
        let fixture = try PhoneFixture(kind, config: """
            {"state":"ENABLED","providers":{"phone":"ENABLED"},"testPhoneNumbers":{"+15555550100":"123456"},
             "limits":{"smsResendCooldown":30,"smsPerNumberHour":3,"smsPerUserHour":7,"smsPerTenantHour":40}}
            """)
        let sessions = try (0..<20).map { index in
            try fixture.context.multiFactor(for: fixture.user("user\(index)")).session()
        }
        let outcomes = Mutex<[MFAErrorCode?: Int]>([:])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for request in 0..<125 {
                let index = (thread * 125 + request) % 20
                let number = request % 10 == 0 ? "+15555550100" : "+1510555\(String(1000 + (thread * 125 + request) % 100))"
                let code = errorCode {
                    try fixture.provider.verifyPhoneNumber(number, appCredential: "good",
                                                           multiFactorSession: sessions[index])
                }
                outcomes.withLock { $0[code, default: 0] += 1 }
            }
        }
        let counts = outcomes.withLock { $0 }
        let sent = fixture.sender.messages.count
        #expect(sent == 40, "tenant cap: \(counts)")
        #expect(counts.values.reduce(0, +) == 1000)
        #expect(!fixture.sender.messages.contains { $0.number == "+15555550100" })
        let testRequests = 8 * (0..<125).filter { $0 % 10 == 0 }.count
        #expect(counts[nil] == 40 + testRequests, "the 40 real sends and every test-number request succeed: \(counts)")
        #expect((counts[.quotaExceeded] ?? 0) + (counts[.tooManyAttemptsTryLater] ?? 0) == 1000 - 40 - testRequests)
        let perNumber = Dictionary(grouping: fixture.sender.messages, by: \.number).mapValues(\.count)
        #expect(perNumber.values.allSatisfy { $0 == 1 }, "the cooldown lets one code per number through")
    }
}
