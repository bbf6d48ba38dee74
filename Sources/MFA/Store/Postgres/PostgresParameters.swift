/// Parameters laid out for `PQsendQueryPrepared`: text for numbers and
/// strings, binary for bytes, NULL for null; all the values in one
/// allocation, NUL-terminated.
final class PostgresParameters {
    private let storage: UnsafeMutableRawPointer
    private let values: [UnsafePointer<CChar>?]
    private let lengths: [Int32]
    private let formats: [Int32]

    init(_ parameters: [SQLValue]) {
        var total = 0
        for parameter in parameters {
            switch parameter {
            case .null: break
            case .int: total += 21
            case .text(let text): total += text.utf8.count + 1
            case .blob(let bytes): total += bytes.count + 1
            }
        }
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(total, 1), alignment: 1)
        var values: [UnsafePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        values.reserveCapacity(parameters.count)
        lengths.reserveCapacity(parameters.count)
        formats.reserveCapacity(parameters.count)
        var offset = 0
        for parameter in parameters {
            let start = storage + offset
            switch parameter {
            case .null:
                values.append(nil)
                lengths.append(0)
                formats.append(0)
                continue
            case .int(let number):
                offset += Self.writeDecimal(number, to: start)
                formats.append(0)
                lengths.append(0)
            case .text(var text):
                let count = text.utf8.count
                text.withUTF8 { utf8 in
                    if let source = utf8.baseAddress, count > 0 { start.copyMemory(from: source, byteCount: count) }
                }
                offset += count
                formats.append(0)
                lengths.append(0)
            case .blob(let bytes):
                bytes.withUnsafeBytes { buffer in
                    if let source = buffer.baseAddress, !buffer.isEmpty {
                        start.copyMemory(from: source, byteCount: buffer.count)
                    }
                }
                offset += bytes.count
                formats.append(1)
                lengths.append(Int32(bytes.count))
            }
            storage.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
            offset += 1
            values.append(UnsafePointer(start.assumingMemoryBound(to: CChar.self)))
        }
        self.storage = storage
        self.values = values
        self.lengths = lengths
        self.formats = formats
    }

    deinit {
        storage.deallocate()
    }

    /// Writes `number` in decimal at `out` (at most 20 bytes), returning the count.
    private static func writeDecimal(_ number: Int64, to out: UnsafeMutableRawPointer) -> Int {
        var magnitude = number.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0) // 24 bytes of scratch
        return withUnsafeMutableBytes(of: &digits) { scratch in
            var index = scratch.count
            repeat {
                index -= 1
                scratch[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if number < 0 {
                index -= 1
                scratch[index] = UInt8(ascii: "-")
            }
            let count = scratch.count - index
            out.copyMemory(from: scratch.baseAddress! + index, byteCount: count)
            return count
        }
    }

    /// Calls `body` with the values, lengths and formats, valid during the call.
    func withArrays<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
                                UnsafePointer<Int32>?) -> R) -> R {
        values.withUnsafeBufferPointer { valuePointers in
            lengths.withUnsafeBufferPointer { lengthPointers in
                formats.withUnsafeBufferPointer { formatPointers in
                    body(valuePointers.baseAddress, lengthPointers.baseAddress, formatPointers.baseAddress)
                }
            }
        }
    }
}
