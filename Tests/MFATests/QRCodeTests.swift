import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MFA
import Testing

@Suite("QR codes")
struct QRCodeTests {
    /// A realistic enrollment URI, with a percent-encoded issuer and account.
    static let uri = "otpauth://totp/ACME%20Co:alice%40example.com?secret=JBSWY3DPEHPK3PXP"
        + "&issuer=ACME%20Co&algorithm=SHA1&digits=6&period=30"

    @Test("the PNG decodes back to the exact text with zbarimg", arguments: QRCode.ErrorCorrection.allCases)
    func pngRoundTrip(level: QRCode.ErrorCorrection) throws {
        let code = try QRCode(encoding: Self.uri, errorCorrection: level)
        #expect(code.errorCorrection == level)
        #expect(try zbarimg(code.png()) == Self.uri)
    }

    @Test("small scale and border still decode, and a built key URI round trips")
    func pngRoundTripSmall() throws {
        let uri = KeyURI(issuer: "ACME Co", account: "alice@example.com", secret: Array("12345678901234567890".utf8))
        let text = try uri.uri()
        let code = try QRCode(encoding: text, errorCorrection: .low)
        #expect(try zbarimg(code.png(scale: 3, border: 2)) == text)
    }

    @Test("the PNG has the signature, the right IHDR and valid chunk CRCs")
    func pngStructure() throws {
        let code = try QRCode(encoding: Self.uri)
        for (scale, border) in [(8, 4), (1, 0), (3, 1), (32, 16)] {
            let png = try code.png(scale: scale, border: border)
            #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            let chunks = try #require(parseChunks(png))
            #expect(chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
            for chunk in chunks {
                #expect(chunk.crc == crc32(Array(chunk.type.utf8) + chunk.data), "\(chunk.type)")
            }
            let header = chunks[0].data
            #expect(header.count == 13)
            let side = (code.size + 2 * border) * scale
            #expect(bigEndian(header, 0) == side && bigEndian(header, 4) == side)
            #expect(Array(header[8...]) == [1, 0, 0, 0, 0])  // 1-bit grayscale, no interlace
            #expect(chunks[1].data.first.map { $0 & 0x0F } == 8)  // a zlib (deflate) stream
            #expect(chunks[2].data.isEmpty)
        }
    }

    @Test("the SVG has a viewBox, a background, one path and its size")
    func svg() throws {
        let code = try QRCode(encoding: Self.uri)
        let svg = try code.svg(scale: 5, border: 3)
        let side = code.size + 6
        #expect(svg.hasPrefix("<svg "))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("viewBox=\"0 0 \(side) \(side)\""))
        #expect(svg.contains("width=\"\(side * 5)\" height=\"\(side * 5)\""))
        #expect(svg.contains("shape-rendering=\"crispEdges\""))
        #expect(svg.contains("fill=\"#fff\""))
        #expect(svg.components(separatedBy: "<path ").count == 2)
        // The top-left finder pattern's first row is a run of 7 dark modules at the border.
        #expect(svg.contains("d=\"M3 3h7v1h-7z"))
        // Well-formed XML.
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        // One unit square per dark module: the path's area is the dark module count.
        #expect(pathArea(svg) == code.modules.filter { $0 }.count)
    }

    @Test("terminal text has the right shape, characters and modules", arguments: [false, true])
    func terminal(inverted: Bool) throws {
        let code = try QRCode(encoding: Self.uri)
        #expect(code.size % 2 == 1)  // every QR size is odd: the last line has a padding half
        for border in [0, 1, 2, 4] {
            let text = code.terminalText(border: border, inverted: inverted)
            #expect(text.hasSuffix("\n"))
            let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
            let side = code.size + 2 * border
            #expect(lines.count == (side + 1) / 2)
            #expect(lines.allSatisfy { $0.count == side })
            #expect(text.allSatisfy { " ▀▄█\n".contains($0) })
            // Decode the half blocks and compare with the modules.
            for (index, line) in lines.enumerated() {
                for (column, character) in line.enumerated() {
                    let (upper, lower): (Bool, Bool) = switch character {
                    case "█": (true, true)
                    case "▀": (true, false)
                    case "▄": (false, true)
                    default: (false, false)
                    }
                    let x = column - border, y = 2 * index - border
                    #expect((upper != inverted) == code.isDark(x: x, y: y))
                    #expect((lower != inverted) == code.isDark(x: x, y: y + 1))
                }
            }
        }
        // The default quiet zone is two light modules: one blank line (or full line when inverted).
        let first = try #require(code.terminalText(inverted: inverted).split(separator: "\n").first)
        #expect(first == String(repeating: inverted ? "█" : " ", count: code.size + 4))
        // Out-of-range borders are clamped, not trapped.
        #expect(code.terminalText(border: -1) == code.terminalText(border: 0))
        #expect(code.terminalText(border: 99) == code.terminalText(border: 16))
    }

    @Test("bad input is rejected with invalidArgument")
    func badInput() throws {
        for text in ["", String(repeating: "A", count: 8000), "a\u{0}b"] {
            #expect(throws: MFAError.self) { try QRCode(encoding: text) }
            #expect(errorCode(of: { try QRCode(encoding: text) }) == .invalidArgument)
        }
        // Fits at low error correction but not at high: libqrencode's ERANGE.
        let medium = String(repeating: "x", count: 2000)
        #expect(errorCode(of: { try QRCode(encoding: medium, errorCorrection: .low) }) == nil)
        #expect(errorCode(of: { try QRCode(encoding: medium, errorCorrection: .high) }) == .invalidArgument)
        #expect(errorCode(of: { try QRCode(encoding: String(repeating: "x", count: QRCode.maxInputBytes),
                                      errorCorrection: .low) }) == nil)

        let qr = try QRCode(encoding: Self.uri)
        for (scale, border) in [(0, 4), (33, 4), (-1, 4), (8, -1), (8, 17)] {
            #expect(errorCode(of: { try qr.png(scale: scale, border: border) }) == .invalidArgument)
            #expect(errorCode(of: { try qr.svg(scale: scale, border: border) }) == .invalidArgument)
        }
    }

    @Test("the three finder patterns sit in the corners")
    func finderPatterns() throws {
        let code = try QRCode(encoding: Self.uri, errorCorrection: .high)
        #expect(code.size == 17 + 4 * code.version)
        #expect(code.modules.count == code.size * code.size)
        let n = code.size
        for (left, top) in [(0, 0), (n - 7, 0), (0, n - 7)] {
            for dy in 0..<7 {
                for dx in 0..<7 {
                    let ring = dx == 0 || dy == 0 || dx == 6 || dy == 6
                    let core = (2...4).contains(dx) && (2...4).contains(dy)
                    #expect(code.isDark(x: left + dx, y: top + dy) == (ring || core), "(\(left + dx), \(top + dy))")
                }
            }
        }
        // The bottom-right corner has no finder pattern; outside the symbol is light.
        #expect(!(0..<7).allSatisfy { code.isDark(x: n - 1 - $0, y: n - 1) })
        #expect(!code.isDark(x: -1, y: 0) && !code.isDark(x: 0, y: n) && !code.isDark(x: n, y: n))
    }

    @Test("encoding is deterministic and equal codes compare equal")
    func equality() throws {
        #expect(try QRCode(encoding: Self.uri) == QRCode(encoding: Self.uri))
        #expect(try QRCode(encoding: Self.uri) != QRCode(encoding: Self.uri + "x"))
        #expect(try QRCode(encoding: Self.uri).version < QRCode(encoding: Self.uri, errorCorrection: .high).version)
    }
}

// MARK: - Helpers

/// The error code a throwing call fails with, or nil if it succeeds.
private func errorCode<T>(of body: () throws -> T) -> MFAErrorCode? {
    do { _ = try body(); return nil } catch let error as MFAError { return error.code } catch { return .internal }
}

/// Runs `zbarimg --quiet --raw` on `png` and returns what it read, without the final newline.
private func zbarimg(_ png: [UInt8]) throws -> String {
    let executable = try #require(["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }, "zbarimg is missing: install zbar-tools (scripts/setup.sh)")
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("libmfa-qr-\(UUID().uuidString).png")
    try Data(png).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }

    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["--quiet", "--raw", file.path]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "zbarimg found no code")
    var text = String(decoding: data, as: UTF8.self)
    if text.hasSuffix("\n") { text.removeLast() }
    return text
}

private struct Chunk {
    let type: String
    let data: [UInt8]
    let crc: UInt32
}

/// The chunks after the signature, or nil if the lengths do not add up.
private func parseChunks(_ png: [UInt8]) -> [Chunk]? {
    var chunks: [Chunk] = []
    var offset = 8
    while offset < png.count {
        guard offset + 12 <= png.count else { return nil }
        let length = bigEndian(png, offset)
        guard offset + 12 + length <= png.count else { return nil }
        let type = String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self)
        let data = Array(png[(offset + 8)..<(offset + 8 + length)])
        chunks.append(Chunk(type: type, data: data, crc: UInt32(bigEndian(png, offset + 8 + length))))
        offset += 12 + length
    }
    return chunks
}

private func bigEndian(_ bytes: [UInt8], _ offset: Int) -> Int {
    bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
}

/// The CRC-32 of PNG and zlib, bit by bit: independent of the library's zlib call.
private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// The area drawn by a path made only of `M x y h n v1 h-n z` rectangles.
private func pathArea(_ svg: String) -> Int? {
    guard let start = svg.range(of: " d=\"")?.upperBound,
          let end = svg[start...].firstIndex(of: "\"") else { return nil }
    var area = 0
    for rectangle in svg[start..<end].split(separator: "z") {
        guard let h = rectangle.firstIndex(of: "h"), let v = rectangle.firstIndex(of: "v"),
              let width = Int(rectangle[rectangle.index(after: h)..<v]) else { return nil }
        area += width
    }
    return area
}
