#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MFA

/// Standard output and error, files and the environment, without Foundation.
enum Terminal {
    /// Whether standard output is a terminal.
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }

    /// Writes `text` and a newline to standard output.
    static func out(_ text: String) {
        write(1, text + "\n")
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        write(2, text + "\n")
    }

    /// Writes `text` as it is to a file descriptor.
    static func write(_ descriptor: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    /// An environment variable, or nil if unset or empty; always nil in a
    /// setuid, setgid or file-capability run (`ProcessEnvironment`).
    static func environment(_ name: String) -> String? {
        ProcessEnvironment.value(name)
    }

    /// The login name of the user who ran the tool (the real user id's, from
    /// the password database), or nil.
    static var realUserName: String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil,
              let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    /// The bytes of a file, or of standard input for "-".
    static func read(_ path: String) throws -> [UInt8] {
        let descriptor = path == "-" ? 0 : open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw Failure("cannot open \(path): \(String(cString: strerror(errno)))", status: ExitStatus.notFound)
        }
        defer { if descriptor != 0 { close(descriptor) } }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure("cannot read \(path): \(String(cString: strerror(errno)))", status: ExitStatus.invalidData)
            }
            if count == 0 { return out }
            out.append(contentsOf: chunk[0..<count])
        }
    }

    /// The text of a file (or standard input for "-"), which must be UTF-8.
    static func readText(_ path: String) throws -> String {
        let bytes = try read(path)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
                throw Failure("\(path) is UTF-16 text: save it as UTF-8 (a spreadsheet's \"CSV UTF-8\")",
                              status: ExitStatus.invalidData)
            }
            throw Failure("\(path) is not UTF-8 text", status: ExitStatus.invalidData)
        }
        return text
    }

    /// Seconds since an arbitrary start, for rates.
    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
