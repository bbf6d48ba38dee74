/// Prometheus' text exposition format, version 0.0.4: what a `/metrics`
/// endpoint serves, as `text/plain; version=0.0.4; charset=utf-8`.
///
/// Each family is a `# HELP` line (backslash and line feed escaped), a
/// `# TYPE` line and its series; a label value escapes backslash, double
/// quote and line feed; a histogram writes `_bucket{…,le="…"}` lines (the
/// last `le="+Inf"`), then `_sum` and `_count`. Numbers are written as Go's
/// parser reads them (`1`, `0.0025`, `2.5e-05`, `+Inf`).
package enum PrometheusText {
    /// The text of `snapshot`.
    package static func encode(_ snapshot: MetricsSnapshot) -> String {
        var out = ""
        for family in snapshot.families {
            out += "# HELP \(family.name) \(escapeHelp(family.help))\n"
            out += "# TYPE \(family.name) \(family.type.rawValue)\n"
            for sample in family.samples {
                switch family.type {
                case .counter:
                    out += "\(family.name)\(labels(sample.labels)) \(sample.value)\n"
                case .histogram:
                    for bucket in sample.buckets {
                        let le = MetricLabel("le", number(bucket.upperBound))
                        out += "\(family.name)_bucket\(labels(sample.labels + [le])) \(bucket.count)\n"
                    }
                    out += "\(family.name)_sum\(labels(sample.labels)) \(number(sample.sum))\n"
                    out += "\(family.name)_count\(labels(sample.labels)) \(sample.value)\n"
                }
            }
        }
        return out
    }

    /// `{name="value",…}`, or "" for no labels.
    package static func labels(_ labels: [MetricLabel]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.map { "\($0.name)=\"\(escapeLabel($0.value))\"" }.joined(separator: ",") + "}"
    }

    /// A help text with `\` and line feeds escaped.
    package static func escapeHelp(_ text: String) -> String {
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// A label value with `\`, `"` and line feeds escaped.
    package static func escapeLabel(_ text: String) -> String {
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// A number as Prometheus reads it: whole numbers without a decimal
    /// point ("1", as the `le` of Prometheus' own clients), `+Inf`, `-Inf`, `NaN`.
    package static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
