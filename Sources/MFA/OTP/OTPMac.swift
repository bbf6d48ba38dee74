import CNettle

/// An HMAC context keyed once, then used for any number of 8-byte counters.
///
/// The contexts are held inline (no allocation): keying costs two
/// compressions once, and each MAC afterwards costs two more. For SHA-256 and
/// SHA-512 they are nettle's `hmac_*_ctx` structs, whose digest call leaves the
/// context keyed for the next message; SHA-1, the hot path of every
/// authenticator app, goes straight to the compression function
/// (`SHA1Mac`).
protocol OTPMac {
    /// Keys the context. `key` must not be empty.
    init(key: UnsafeRawBufferPointer)
    /// The RFC 4226 dynamically truncated 31-bit value of HMAC(key, counter).
    mutating func truncated(counter: UInt64) -> UInt32
    /// `truncated(counter:)` of every counter, into `values` (at least as long).
    mutating func truncated(counters: UnsafeBufferPointer<UInt64>, into values: UnsafeMutableBufferPointer<UInt32>)
}

extension OTPMac {
    mutating func truncated(counters: UnsafeBufferPointer<UInt64>, into values: UnsafeMutableBufferPointer<UInt32>) {
        for index in counters.indices { values[index] = truncated(counter: counters[index]) }
    }
}

/// RFC 4226 §5.3 dynamic truncation of a digest of `length` bytes.
@inline(__always)
func dynamicTruncation(_ digest: UnsafeRawBufferPointer, length: Int) -> UInt32 {
    let offset = Int(digest[length - 1] & 0x0f)
    return UInt32(digest[offset] & 0x7f) << 24
        | UInt32(digest[offset + 1]) << 16
        | UInt32(digest[offset + 2]) << 8
        | UInt32(digest[offset + 3])
}

/// Runs `body` with the 8 big-endian bytes of `counter`, as RFC 4226 hashes them.
@inline(__always)
func withCounterBytes<R>(_ counter: UInt64, _ body: (UnsafePointer<UInt8>) -> R) -> R {
    withUnsafeBytes(of: counter.bigEndian) { body($0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
}

/// HMAC-SHA256 through nettle.
struct SHA256Mac: OTPMac {
    private var context = hmac_sha256_ctx()

    init(key: UnsafeRawBufferPointer) {
        nettle_hmac_sha256_set_key(&context, key.count, key.baseAddress?.assumingMemoryBound(to: UInt8.self))
    }

    mutating func truncated(counter: UInt64) -> UInt32 {
        withCounterBytes(counter) { nettle_hmac_sha256_update(&context, 8, $0) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
            nettle_hmac_sha256_digest(&context, 32, digest.baseAddress)
            return dynamicTruncation(UnsafeRawBufferPointer(digest), length: 32)
        }
    }
}

/// HMAC-SHA512 through nettle.
struct SHA512Mac: OTPMac {
    private var context = hmac_sha512_ctx()

    init(key: UnsafeRawBufferPointer) {
        nettle_hmac_sha512_set_key(&context, key.count, key.baseAddress?.assumingMemoryBound(to: UInt8.self))
    }

    mutating func truncated(counter: UInt64) -> UInt32 {
        withCounterBytes(counter) { nettle_hmac_sha512_update(&context, 8, $0) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { digest in
            nettle_hmac_sha512_digest(&context, 64, digest.baseAddress)
            return dynamicTruncation(UnsafeRawBufferPointer(digest), length: 64)
        }
    }
}
