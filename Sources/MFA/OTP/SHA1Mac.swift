import CNettle
import CSodium

/// HMAC-SHA1 for 8-byte messages, built on nettle's SHA-1 compression
/// function (which uses the CPU's SHA extensions where they exist).
///
/// Keying stores the two chaining values after the ipad and opad blocks. Each
/// MAC is then exactly two compressions on pre-padded blocks: the inner block
/// (counter, padding, length) and the outer block (inner digest, padding,
/// length), with no hashing context copied or reset between time steps.
///
/// Every block is written completely before the compressions that read it
/// are started, and a batch runs all inner compressions, then all outer ones:
/// a compression then never waits for a store that follows an earlier,
/// independent compression, so the CPU overlaps them. Blocks are made of
/// 16-byte lanes, stored whole, so that the compression's 16-byte loads are
/// forwarded from the stores instead of waiting for them to reach the cache;
/// the key is read in words straight from the caller's buffer.
struct SHA1Mac: OTPMac {
    private typealias State = (UInt32, UInt32, UInt32, UInt32, UInt32)
    private typealias Lane = SIMD2<UInt64>
    private typealias Block = (Lane, Lane, Lane, Lane)

    private var innerKeyed: State
    private var outerKeyed: State

    /// SHA-1's initial chaining value, read once from nettle.
    private static let initialState: State = {
        var context = sha1_ctx()
        nettle_sha1_init(&context)
        return context.state
    }()

    init(key: UnsafeRawBufferPointer) {
        let padded: Block
        if key.count > 64 {
            var digest: Block = (.zero, .zero, .zero, .zero)
            withUnsafeMutableBytes(of: &digest) { block in
                var context = sha1_ctx()
                nettle_sha1_init(&context)
                nettle_sha1_update(&context, key.count, key.baseAddress?.assumingMemoryBound(to: UInt8.self))
                nettle_sha1_digest(&context, 20, block.baseAddress?.assumingMemoryBound(to: UInt8.self))
            }
            padded = digest
        } else {
            padded = (Self.lane(key, 0), Self.lane(key, 16), Self.lane(key, 32), Self.lane(key, 48))
        }
        var blocks = (inner: Self.xor(padded, 0x3636_3636_3636_3636), outer: Self.xor(padded, 0x5c5c_5c5c_5c5c_5c5c))
        innerKeyed = Self.initialState
        outerKeyed = Self.initialState
        Self.compress(&innerKeyed, &blocks.inner)
        Self.compress(&outerKeyed, &blocks.outer)
        withUnsafeMutableBytes(of: &blocks) { sodium_memzero($0.baseAddress, $0.count) }
    }

    mutating func truncated(counter: UInt64) -> UInt32 {
        var block = Self.innerBlock(counter)
        var state = innerKeyed
        Self.compress(&state, &block)
        block = Self.outerBlock(state)
        state = outerKeyed
        Self.compress(&state, &block)
        return Self.truncation(state)
    }

    /// All inner hashes first, then all outer ones (see the type's notes).
    mutating func truncated(counters: UnsafeBufferPointer<UInt64>,
                            into values: UnsafeMutableBufferPointer<UInt32>) {
        let count = counters.count
        withUnsafeTemporaryAllocation(of: Block.self, capacity: max(count, 1)) { blocks in
            withUnsafeTemporaryAllocation(of: State.self, capacity: max(count, 1)) { states in
                for index in 0..<count {
                    blocks[index] = Self.innerBlock(counters[index])
                    states[index] = innerKeyed
                }
                for index in 0..<count { Self.compress(&states[index], &blocks[index]) }
                for index in 0..<count {
                    blocks[index] = Self.outerBlock(states[index])
                    states[index] = outerKeyed
                }
                for index in 0..<count { Self.compress(&states[index], &blocks[index]) }
                for index in 0..<count { values[index] = Self.truncation(states[index]) }
            }
        }
    }

    /// The inner message block: 8 counter bytes, 0x80, zeros, length 576 bits.
    @inline(__always)
    private static func innerBlock(_ counter: UInt64) -> Block {
        (Lane(counter.bigEndian, 0x80), .zero, .zero, Lane(0, UInt64(576).bigEndian))
    }

    /// The outer message block: the 20-byte inner digest, 0x80, zeros, length 672 bits.
    @inline(__always)
    private static func outerBlock(_ inner: State) -> Block {
        (Lane(UInt64(inner.0.bigEndian) | UInt64(inner.1.bigEndian) << 32,
              UInt64(inner.2.bigEndian) | UInt64(inner.3.bigEndian) << 32),
         Lane(UInt64(inner.4.bigEndian) | 0x80 << 32, 0), .zero, Lane(0, UInt64(672).bigEndian))
    }

    /// Bytes `offset ..< offset + 16` of a key of at most 64 bytes, zero-padded.
    @inline(__always)
    private static func lane(_ key: UnsafeRawBufferPointer, _ offset: Int) -> Lane {
        Lane(word(key, offset), word(key, offset + 8))
    }

    /// Bytes `offset ..< offset + 8` of the key as a little-endian word, zero-padded.
    @inline(__always)
    private static func word(_ key: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        guard let base = key.baseAddress else { return 0 }
        if key.count >= offset + 8 { return base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        var value: UInt64 = 0
        var index = key.count - 1
        while index >= offset {
            value = value << 8 | UInt64(base.load(fromByteOffset: index, as: UInt8.self))
            index -= 1
        }
        return value
    }

    /// RFC 4226 dynamic truncation of the digest held in `state`.
    @inline(__always)
    private static func truncation(_ state: State) -> UInt32 {
        var digest = (state.0.bigEndian, state.1.bigEndian, state.2.bigEndian, state.3.bigEndian,
                      state.4.bigEndian)
        return withUnsafeBytes(of: &digest) { dynamicTruncation($0, length: 20) }
    }

    @inline(__always)
    private static func xor(_ b: Block, _ pad: UInt64) -> Block {
        let lane = Lane(repeating: pad)
        return (b.0 ^ lane, b.1 ^ lane, b.2 ^ lane, b.3 ^ lane)
    }

    @inline(__always)
    private static func compress(_ state: inout State, _ block: inout Block) {
        withUnsafeMutablePointer(to: &state) { words in
            withUnsafeBytes(of: &block) { bytes in
                words.withMemoryRebound(to: UInt32.self, capacity: 5) {
                    nettle_sha1_compress($0, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
    }
}
