import Foundation
import RelayWire

/// Random identifiers and credentials, from the kernel CSPRNG (getrandom), which is what makes the tokens and
/// secrets unguessable.
enum Identifiers {
    static func deviceID() -> String { hex(randomBytes(16)) }
    static func messageID() -> String { hex(randomBytes(16)) }
    static func pushToken() -> String { base64URL(randomBytes(32)) }
    static func deviceSecret() -> String { base64URL(randomBytes(32)) }
    static func accessToken() -> String { base64URL(randomBytes(32)) }
    static func webPushSubscriptionID() -> String { hex(randomBytes(16)) }
    /// The secret part of a Web Push endpoint (`/push/<token>`): whoever holds it may send to the subscription.
    static func webPushToken() -> String { base64URL(randomBytes(32)) }

    /// One call to the kernel for all the bytes (glibc's `arc4random_buf` is getrandom, and aborts if the kernel has
    /// no randomness to give): `SystemRandomNumberGenerator` would make one per 8 bytes, and every send draws an id.
    static func randomBytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { arc4random_buf(buffer.baseAddress!, count) }
            initialized = count
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func hex(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[2 * index] = hexDigits[Int(byte >> 4)]
                buffer[2 * index + 1] = hexDigits[Int(byte & 0x0f)]
            }
            return bytes.count * 2
        }
    }

    /// Unpadded URL-safe base64 (RFC 4648 §5).
    static func base64URL(_ bytes: some Sequence<UInt8>) -> String { Base64URL.encode(bytes) }
}

/// RFC 3339 in UTC with whole seconds: the form every RFC 3339 parser accepts.
func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
