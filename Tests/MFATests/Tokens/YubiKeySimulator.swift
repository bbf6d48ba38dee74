import CNettle
import CSodium
import MFA

/// A YubiKey's Yubico OTP slot in software, for the tests: its public id,
/// private id and AES key, and its counters as a key keeps them (the use
/// counter rises at each power-up and when the session counter wraps).
final class YubiKeySimulator: @unchecked Sendable {
    let publicID: String
    let privateID: [UInt8]
    let key: [UInt8]
    var useCounter: UInt16
    var sessionCounter: UInt8 = 0

    init(useCounter: UInt16 = 1) {
        var id = [UInt8](repeating: 0, count: 6)
        var priv = [UInt8](repeating: 0, count: 6)
        var aes = [UInt8](repeating: 0, count: 16)
        randombytes_buf(&id, 6)
        randombytes_buf(&priv, 6)
        randombytes_buf(&aes, 16)
        id[0] = (id[0] & 0x0f) | 0xc0 // a public id starting with "vv"-like high nibble, any is valid
        publicID = Self.modhex(id)
        privateID = priv
        key = aes
        self.useCounter = useCounter
    }

    /// The seed an operator imports for it.
    var seed: HardwareTokenSeed { .yubicoOTP(publicID: publicID, privateID: privateID, key: key) }

    /// A touch: the OTP typed, then the session counter rises (wrapping into the use counter).
    func touch() -> String {
        let otp = otp(use: useCounter, session: sessionCounter)
        if sessionCounter == 0xff {
            sessionCounter = 0
            useCounter &+= 1
        } else {
            sessionCounter += 1
        }
        return otp
    }

    /// A power cycle: the use counter rises, the session counter starts again.
    func replug() {
        useCounter &+= 1
        sessionCounter = 0
    }

    /// The OTP of these counters, encrypted with `key` (or another key, for a wrong OTP).
    func otp(use: UInt16, session: UInt8, key other: [UInt8]? = nil, privateID otherID: [UInt8]? = nil) -> String {
        var block = otherID ?? privateID
        block += [UInt8(use & 0xff), UInt8(use >> 8), 0x12, 0x34, 0x00, session, 0xab, 0xcd]
        let crc = ~Self.crc16(block)
        block += [UInt8(crc & 0xff), UInt8(crc >> 8)]
        var out = [UInt8](repeating: 0, count: 16)
        var context = aes128_ctx()
        (other ?? key).withUnsafeBufferPointer { nettle_aes128_set_encrypt_key(&context, $0.baseAddress) }
        nettle_aes128_encrypt(&context, 16, &out, block)
        return publicID + Self.modhex(out)
    }

    static func modhex(_ bytes: [UInt8]) -> String {
        let alphabet = Array("cbdefghijklnrtuv")
        return String(bytes.flatMap { [alphabet[Int($0 >> 4)], alphabet[Int($0 & 15)]] })
    }

    static func crc16(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0xffff
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x8408 : crc >> 1 }
        }
        return crc
    }
}
