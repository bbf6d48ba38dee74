import Foundation
import MFA
import Synchronization
import Testing

/// Prometheus' text format as written, read back with a parser of the
/// format's grammar (version 0.0.4), and the counters under concurrency.
@Suite("Metrics: the Prometheus text format, the registry's kinds, atomic counting")
struct MetricsFormatTests {
    /// One parsed series line.
    struct Line: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// A parsed exposition: the families' HELP and TYPE, and every series line.
    struct Exposition {
        var help: [String: String] = [:]
        var type: [String: String] = [:]
        var lines: [Line] = []
        /// The family each line belongs to, in order.
        var familyOfLine: [String] = []
    }

    enum ParseError: Error { case malformed(String) }

    /// Parses the text format strictly: HELP and TYPE before a family's
    /// series, names and label names of the allowed characters, label
    /// values with only the three escapes, numbers as Go reads them.
    static func parse(_ text: String) throws -> Exposition {
        var out = Exposition()
        var current = ""
        guard text.isEmpty || text.hasSuffix("\n") else { throw ParseError.malformed("no final line feed") }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let line = String(raw)
            if line.hasPrefix("# HELP ") {
                let rest = line.dropFirst(7)
                guard let space = rest.firstIndex(of: " ") else { throw ParseError.malformed(line) }
                current = String(rest[..<space])
                guard out.help[current] == nil else { throw ParseError.malformed("HELP twice: \(line)") }
                out.help[current] = try unescape(String(rest[rest.index(after: space)...]), quote: false)
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                guard parts.count == 2, String(parts[0]) == current,
                      ["counter", "histogram", "gauge", "summary", "untyped"].contains(String(parts[1])) else {
                    throw ParseError.malformed(line)
                }
                out.type[current] = String(parts[1])
            } else {
                let series = try parseSeries(line)
                let family = out.type[current] == "histogram"
                    ? ["_bucket", "_sum", "_count"].contains { series.name == current + $0 } ? current : ""
                    : series.name == current ? current : ""
                guard !family.isEmpty else { throw ParseError.malformed("\(series.name) outside its family") }
                out.lines.append(series)
                out.familyOfLine.append(family)
            }
        }
        return out
    }

    static func isNameCharacter(_ c: Character, first: Bool) -> Bool {
        c == "_" || c == ":" || (c.isASCII && c.isLetter) || (!first && c.isASCII && c.isNumber)
    }

    static func parseSeries(_ line: String) throws -> Line {
        var index = line.startIndex
        var name = ""
        while index < line.endIndex, isNameCharacter(line[index], first: name.isEmpty) {
            name.append(line[index])
            index = line.index(after: index)
        }
        guard !name.isEmpty else { throw ParseError.malformed(line) }
        var labels: [String: String] = [:]
        if index < line.endIndex, line[index] == "{" {
            index = line.index(after: index)
            while line[index] != "}" {
                var label = ""
                while isNameCharacter(line[index], first: label.isEmpty), line[index] != ":" {
                    label.append(line[index])
                    index = line.index(after: index)
                }
                guard !label.isEmpty, line[index] == "=", line[line.index(after: index)] == "\"" else {
                    throw ParseError.malformed(line)
                }
                index = line.index(index, offsetBy: 2)
                var value = ""
                while line[index] != "\"" {
                    if line[index] == "\\" {
                        value.append(line[index])
                        index = line.index(after: index)
                    }
                    value.append(line[index])
                    index = line.index(after: index)
                }
                index = line.index(after: index)
                guard labels.updateValue(try unescape(value, quote: true), forKey: label) == nil else {
                    throw ParseError.malformed("label twice: \(line)")
                }
                if line[index] == "," { index = line.index(after: index) }
            }
            index = line.index(after: index)
        }
        guard index < line.endIndex, line[index] == " " else { throw ParseError.malformed(line) }
        let number = String(line[line.index(after: index)...])
        let value: Double
        switch number {
        case "+Inf": value = .infinity
        case "-Inf": value = -.infinity
        default:
            guard let parsed = Double(number), !number.contains(" ") else { throw ParseError.malformed(line) }
            value = parsed
        }
        return Line(name: name, labels: labels, value: value)
    }

    /// Undoes the format's escapes: `\\`, `\n` and (in label values) `\"`; any other is malformed.
    static func unescape(_ text: String, quote: Bool) throws -> String {
        var out = ""
        var escaped = false
        for c in text {
            if escaped {
                switch c {
                case "\\": out.append("\\")
                case "n": out.append("\n")
                case "\"" where quote: out.append("\"")
                default: throw ParseError.malformed("escape \\\(c)")
                }
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                guard c != "\n", !(quote && c == "\"") else { throw ParseError.malformed(text) }
                out.append(c)
            }
        }
        guard !escaped else { throw ParseError.malformed(text) }
        return out
    }

    /// A context with a TOTP sign-in, a wrong code and tenant labels, for the format.
    static func busyContext() throws -> MFAContext {
        let fixture = try EngineFixture(.sqlite)
        let (info, secret) = try fixture.enrollTOTP(fixture.user())
        fixture.clock.advance(30)
        _ = try fixture.resolver(fixture.user()).resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: try fixture.code(secret)))
        _ = errorCode {
            try fixture.resolver(fixture.user()).resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: info.uid, oneTimePassword: "12345678"))
        }
        return fixture.context
    }

    @Test("the text follows the format and Prometheus' naming conventions, and reads back as the snapshot")
    func format() throws {
        let context = try Self.busyContext()
        let snapshot = context.metrics.snapshot()
        let text = context.metrics.prometheusText()
        let parsed = try Self.parse(text)
        #expect(parsed.help.count == snapshot.families.count && parsed.help.count >= 10)
        for family in snapshot.families {
            #expect(family.name.hasPrefix("libmfa_"))
            #expect(family.name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLowercase || $0.isNumber)) })
            #expect(parsed.type[family.name] == family.type.rawValue)
            #expect(parsed.help[family.name] == family.help && !family.help.isEmpty)
            switch family.type {
            case .counter: #expect(family.name.hasSuffix("_total"), "\(family.name)")
            case .histogram: #expect(family.name.hasSuffix("_seconds"), "\(family.name)")
            }
            for sample in family.samples {
                #expect(!sample.labels.contains { $0.name == "le" || $0.name.hasPrefix("__") })
                if family.type == .counter {
                    #expect(parsed.lines.contains(Line(name: family.name, labels: sample.labelDictionary,
                                                       value: Double(sample.value))))
                    continue
                }
                var previous: (bound: Double, count: Double) = (-1, 0)
                for bucket in sample.buckets {
                    var labels = sample.labelDictionary
                    labels["le"] = bucket.upperBound.isInfinite ? "+Inf" : "\(bucket.upperBound)"
                        .replacingOccurrences(of: ".0", with: "", options: .anchored)
                    let line = try #require(parsed.lines.first {
                        $0.name == family.name + "_bucket" && $0.labels.filter { $0.key != "le" } == sample.labelDictionary
                            && Double($0.labels["le"] == "+Inf" ? "inf" : $0.labels["le"] ?? "") == bucket.upperBound
                    })
                    #expect(line.value == Double(bucket.count))
                    #expect(bucket.upperBound > previous.bound && Double(bucket.count) >= previous.count)
                    previous = (bucket.upperBound, Double(bucket.count))
                }
                #expect(sample.buckets.last?.upperBound == .infinity)
                #expect(parsed.lines.contains(Line(name: family.name + "_count", labels: sample.labelDictionary,
                                                   value: Double(sample.value))))
                #expect(Double(sample.buckets.last?.count ?? 0) == Double(sample.value))
                let sum = try #require(parsed.lines.first {
                    $0.name == family.name + "_sum" && $0.labels == sample.labelDictionary
                })
                #expect(abs(sum.value - sample.sum) <= sample.sum * 1e-12)
            }
        }
        #expect(text.contains("libmfa_sign_in_duration_seconds_bucket{kind=\"totp\",le=\"+Inf\"} 2\n"))
        #expect(text.contains("libmfa_sign_in_duration_seconds_bucket{kind=\"totp\",le=\"0.001\"} "))
        #expect(text.contains("libmfa_sign_in_duration_seconds_bucket{kind=\"totp\",le=\"1\"} "))
        #expect(text.contains("libmfa_sign_ins_total{kind=\"totp\",outcome=\"success\"} 1\n"))
        #expect(text.contains("libmfa_sign_ins_total{kind=\"totp\",outcome=\"wrong_code\"} 1\n"))
    }

    @Test("label values and help texts are escaped; numbers are written as Go reads them")
    func escaping() throws {
        let value = "a\\b\"c\nd"
        #expect(PrometheusText.escapeLabel(value) == #"a\\b\"c\nd"#)
        #expect(PrometheusText.escapeHelp("x\\y\nz \"q\"") == #"x\\y\nz "q""#)
        #expect(try Self.unescape(PrometheusText.escapeLabel(value), quote: true) == value)
        let snapshot = MetricsSnapshot(families: [MetricFamily(
            name: "libmfa_test_total", help: "line\nbreak \\ slash", type: .counter,
            samples: [MetricSample(labels: [MetricLabel("tenant", value)], value: 3)])])
        let parsed = try Self.parse(snapshot.prometheusText)
        #expect(parsed.help["libmfa_test_total"] == "line\nbreak \\ slash")
        #expect(parsed.lines == [Line(name: "libmfa_test_total", labels: ["tenant": value], value: 3)])
        #expect(PrometheusText.number(1) == "1" && PrometheusText.number(0.0025) == "0.0025")
        #expect(PrometheusText.number(2.5e-05) == "2.5e-05" && Double(PrometheusText.number(2.5e-05)) == 2.5e-05)
        #expect(PrometheusText.number(.infinity) == "+Inf" && PrometheusText.number(10) == "10")
        #expect(throws: ParseError.self) { try Self.parse("# HELP a x\n# TYPE a counter\na{b=\"c\\q\"} 1\n") }
        #expect(throws: ParseError.self) { try Self.parse("# HELP a x\n# TYPE a counter\nb 1\n") }
    }

    @Test("a kind added to the registry gets its series, and a channel of its own, with no change to the metrics")
    func registryKinds() {
        let layout = MetricsLayout(kinds: [("totp", nil), ("phone", "sms"), ("email", "email"), ("hotp", nil)])
        let metrics = MFAMetrics(options: .on, layout: layout)
        metrics.codeSend(factorID: "email", .signIn, .sent, tenant: "")
        metrics.signIn(factorID: "hotp", .wrongCode, tenant: "", since: metrics.start())
        metrics.signIn(factorID: "unknown", .wrongCode, tenant: "", since: metrics.start())
        let snapshot = metrics.snapshot()
        #expect(snapshot.value("libmfa_code_sends_total",
                               ["channel": "email", "purpose": "sign_in", "outcome": "sent"]) == 1)
        #expect(snapshot.value("libmfa_code_sends_total",
                               ["channel": "sms", "purpose": "sign_in", "outcome": "sent"]) == 0)
        #expect(snapshot.value("libmfa_sign_ins_total", ["kind": "hotp", "outcome": "wrong_code"]) == 1)
        #expect(snapshot.value("libmfa_sign_in_duration_seconds", ["kind": "hotp"]) == 1)
        #expect(snapshot.family("libmfa_sign_ins_total")?.samples.allSatisfy {
            $0.labelDictionary["kind"] != "unknown"
        } == true)
        // The registry's kinds in its order (the hardware tokens' among them), SMS the first channel.
        let builtIn = ["totp", "phone", "recovery", "webauthn", "email"]
        #expect(MetricsLayout.current.kinds.filter(builtIn.contains) == builtIn
            && ["hotp", "yubico_otp"].allSatisfy(MetricsLayout.current.kinds.contains)
            && MetricsLayout.current.channels.first == "sms")
    }

    @Test("counting from 8 threads at once is exact, and a tenant seen by all of them gets one series")
    func concurrency() {
        let metrics = MFAMetrics(options: .byTenant(limit: 50))
        let rounds = 20_000
        metrics.signInStarted(.signedIn, tenant: "shared")  // a tenant of its own before the race fills the table
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<rounds {
                metrics.signIn(factorID: "totp", .success, tenant: "t\(round % 64)", since: metrics.start())
                metrics.backoffEntered(factorID: "totp", tenant: thread % 2 == 0 ? "" : "shared")
            }
        }
        let snapshot = metrics.snapshot()
        let successes = snapshot.family("libmfa_sign_ins_total")?.samples
            .filter { $0.labelDictionary["outcome"] == "success" }
        let total = successes?.reduce(0) { $0 + $1.value }
        #expect(total == UInt64(8 * rounds))
        let tenants = Set(successes?.filter { $0.value > 0 }.compactMap { $0.labelDictionary["tenant"] } ?? [])
        #expect(tenants.count == 50, "49 of the 64 tenants of their own (one more is \"shared\"), and (other)")
        #expect(tenants.contains("(other)"))
        #expect(snapshot.value("libmfa_backoff_entries_total", ["kind": "totp", "tenant": ""]) == UInt64(4 * rounds))
        #expect(snapshot.value("libmfa_backoff_entries_total", ["kind": "totp", "tenant": "shared"])
            == UInt64(4 * rounds))
        #expect(snapshot.value("libmfa_sign_in_duration_seconds", ["kind": "totp"]) == UInt64(8 * rounds))
    }
}
