/// Progress of a long operation: a bar with the rate and the time left when
/// standard output is a terminal, plain lines when it is not (or on
/// standard error when the output is JSON).
final class Progress {
    private let label: String
    private let bar: Bool
    private let descriptor: Int32
    private let start = Terminal.monotonicSeconds()
    private var lastPrint = -1.0
    private var drawn = false

    /// - Parameters:
    ///   - label: what is counted ("imported", "re-encrypted").
    ///   - json: whether standard output carries JSON (progress then goes to standard error, as lines).
    init(_ label: String, json: Bool) {
        self.label = label
        bar = !json && Terminal.stdoutIsTerminal
        descriptor = json ? 2 : 1
    }

    /// Shows `done` of `total`; a bar is redrawn at most ten times a second,
    /// a plain line printed at most once a second (and for the first and last update).
    func update(_ done: Int, _ total: Int) {
        let now = Terminal.monotonicSeconds()
        let final = done >= total
        if !final && lastPrint >= 0 && now - lastPrint < (bar ? 0.1 : 1.0) { return }
        lastPrint = now
        let elapsed = max(now - start, 0.001)
        let rate = Double(done) / elapsed
        let eta = rate > 0 ? Double(max(total - done, 0)) / rate : 0
        let percent = total > 0 ? Double(done) * 100 / Double(total) : 100
        let numbers = "\(Output.count(done))/\(Output.count(total)) \(label)  \(Output.count(Int(rate)))/s  ETA \(Self.clock(eta))"
        if bar {
            let width = 30
            let filled = total > 0 ? min(width, done * width / max(total, 1)) : width
            let text = "\r[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                + "] " + Self.percent(percent) + "  " + numbers + "\u{1b}[K"
            Terminal.write(descriptor, text)
            drawn = true
        } else {
            Terminal.write(descriptor, "progress: " + Self.percent(percent) + " " + numbers + "\n")
        }
    }

    /// Prints a line above the bar (the bar is redrawn at the next update).
    func line(_ text: String) {
        if drawn {
            Terminal.write(descriptor, "\r\u{1b}[K")
            drawn = false
            lastPrint = -1
        }
        Terminal.out(text)
    }

    /// Ends the bar's line.
    func finish() {
        if drawn { Terminal.write(descriptor, "\n") }
        drawn = false
    }

    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let s = total % 60
        return "\(total / 60):" + (s < 10 ? "0\(s)" : "\(s)")
    }

    static func percent(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded(.down))
        let text = "\(tenths / 10).\(tenths % 10)%"
        return String(repeating: " ", count: max(0, 6 - text.count)) + text
    }
}
