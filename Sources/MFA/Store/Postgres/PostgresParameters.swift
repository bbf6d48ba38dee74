/// Parameters laid out for `PQsendQueryPrepared`: text for numbers and
/// strings, binary for bytes, NULL for null.
final class PostgresParameters {
    private var storage: [UnsafeMutablePointer<CChar>?] = []
    private var lengths: [Int32] = []
    private var formats: [Int32] = []

    init(_ parameters: [SQLValue]) {
        for parameter in parameters {
            switch parameter {
            case .null:
                append(nil, length: 0, format: 0)
            case .int(let number):
                append(Array(String(number).utf8), length: 0, format: 0)
            case .text(let text):
                append(Array(text.utf8), length: 0, format: 0)
            case .blob(let bytes):
                append(bytes, length: Int32(bytes.count), format: 1)
            }
        }
    }

    deinit {
        for pointer in storage { pointer?.deallocate() }
    }

    private func append(_ bytes: [UInt8]?, length: Int32, format: Int32) {
        guard let bytes else {
            storage.append(nil)
            lengths.append(0)
            formats.append(format)
            return
        }
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
        pointer[bytes.count] = 0
        storage.append(pointer)
        lengths.append(length)
        formats.append(format)
    }

    /// Calls `body` with the values, lengths and formats, valid during the call.
    func withArrays<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
                                UnsafePointer<Int32>?) -> R) -> R {
        let values = storage.map { UnsafePointer($0) }
        return values.withUnsafeBufferPointer { valuePointers in
            lengths.withUnsafeBufferPointer { lengthPointers in
                formats.withUnsafeBufferPointer { formatPointers in
                    body(valuePointers.baseAddress, lengthPointers.baseAddress, formatPointers.baseAddress)
                }
            }
        }
    }
}
