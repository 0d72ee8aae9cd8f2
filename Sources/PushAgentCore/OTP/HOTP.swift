import Crypto
import Foundation

/// The HMAC behind an OATH code. SHA-1 is the RFC 4226 default; RFC 6238 adds SHA-256 and SHA-512.
public enum OTPAlgorithm: String, Codable, Sendable, CaseIterable {
    case sha1, sha256, sha512
}

/// RFC 4226 HOTP: the counter-based code TOTP is built on.
public enum HOTP {
    public static func code(secret: Data, counter: UInt64, digits: Int, algorithm: OTPAlgorithm) -> String {
        let message = withUnsafeBytes(of: counter.bigEndian) { Data($0) }
        let key = SymmetricKey(data: secret)
        let mac: [UInt8] = switch algorithm {
        case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
        case .sha256: Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
        case .sha512: Array(HMAC<SHA512>.authenticationCode(for: message, using: key))
        }
        // Dynamic truncation, RFC 4226 §5.3.
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary = UInt32(mac[offset] & 0x7f) << 24 | UInt32(mac[offset + 1]) << 16
            | UInt32(mac[offset + 2]) << 8 | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }
}
