import MFA
import Testing

/// Imports in bulk statements: a batch's users are locked and read, and its
/// factors written, a slice of rows per statement.
@Suite("Bulk imports")
struct BulkImportTests {
    @Test("the slices cover every row once, in at most eight shapes of 128, 64, ..., 1 rows")
    func slices() {
        var shapes: Set<Int> = []
        for count in 0...1000 {
            let slices = MFAStore.bulkSlices(count)
            var next = 0
            for slice in slices {
                #expect(slice.lowerBound == next && !slice.isEmpty && slice.count <= 128)
                #expect(slice.count & (slice.count - 1) == 0)
                next = slice.upperBound
                shapes.insert(slice.count)
            }
            #expect(next == count)
            #expect(zip(slices, slices.dropFirst()).allSatisfy { $0.count >= $1.count })
        }
        #expect(shapes == [1, 2, 4, 8, 16, 32, 64, 128])
    }

    @Test("one batch of 1,000 lines: each line is checked against the store and the batch's earlier lines",
          arguments: StoreKind.available)
    func oneLargeBatch(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        try fixture.context.updateConfig(json: #"{"limits":{"maxFactors":3}}"#)
        // 300 users with one secret each; every third again (the same secret);
        // every fifth with three more (the limit of 3 refuses the last); spread
        // over the batch so that a user's lines fall in different slices.
        var entries: [(uid: Int, secret: UInt8)] = (0..<300).map { ($0, 0) }
        entries += stride(from: 0, to: 300, by: 3).map { ($0, 0) }
        for uid in stride(from: 0, to: 300, by: 5) { entries += [(uid, 1), (uid, 2), (uid, 3)] }
        let first = entries.count
        entries += (0..<(1000 - first)).map { (300 + $0, 0) }
        let order = (0..<1000).map { ($0 * 7919) % 1000 }
        let lines = order.map { entries[$0] }
        let text = lines.map { entry in
            "otpauth://totp/u\(entry.uid)?secret=\(Base32.encode(AdminFixture.secret("u\(entry.uid)", entry.secret), padding: false))"
        }.joined(separator: "\n")

        // What a line-by-line import decides.
        var held: [Int: Set<UInt8>] = [:]
        var expected: [ImportLineReport.Outcome] = []
        for entry in lines {
            if held[entry.uid, default: []].contains(entry.secret) {
                expected.append(.alreadyImported)
            } else if held[entry.uid, default: []].count >= 3 {
                expected.append(.failed)
            } else {
                held[entry.uid, default: []].insert(entry.secret)
                expected.append(.imported)
            }
        }
        let (summary, reports) = try ImportTests.run(fixture, text, .otpauth, batchSize: 1000)
        #expect(reports.map(\.outcome) == expected)
        #expect(summary.imported == expected.filter { $0 == .imported }.count)
        #expect(summary.alreadyImported == expected.filter { $0 == .alreadyImported }.count)
        #expect(summary.failed == expected.filter { $0 == .failed }.count && summary.failed >= 60)
        #expect(try fixture.context.stats().totalFactors == summary.imported)
        let sample = try fixture.context.userFactors(uid: "u15")
        #expect(sample.count == 3 && Set(sample.map(\.uid)).count == 3)

        // Again: every stored secret is found, the refused lines are refused again.
        let (again, _) = try ImportTests.run(fixture, text, .otpauth, batchSize: 1000)
        let refused = lines.filter { !held[$0.uid, default: []].contains($0.secret) }.count
        #expect(again.imported == 0 && again.alreadyImported == 1000 - refused && again.failed == refused)
    }
}
