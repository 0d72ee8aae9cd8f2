import Foundation

/// RFC 4648 base32, the encoding of OATH secrets in QR codes.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Padded output, as RFC 4648 §6 writes it.
    public static func encode(_ data: Data) -> String {
        var output = [UInt8]()
        output.reserveCapacity((data.count + 4) / 5 * 8)
        var buffer: UInt64 = 0
        var bits = 0
        for byte in data {
            buffer = buffer << 8 | UInt64(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int(buffer >> UInt64(bits) & 31)])
            }
        }
        if bits > 0 {
            output.append(alphabet[Int(buffer << UInt64(5 - bits) & 31)])
        }
        while output.count % 8 != 0 { output.append(UInt8(ascii: "=")) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Case-insensitive, padding optional (authenticator apps accept both, so QR generators emit both).
    /// Returns nil for characters outside the alphabet or an impossible length.
    public static func decode(_ text: some StringProtocol) -> Data? {
        var body = Substring(text)
        while body.last == "=" { body.removeLast() }
        // 1, 3 or 6 trailing characters cannot come from whole bytes.
        guard ![1, 3, 6].contains(body.utf8.count % 8) else { return nil }
        var output = Data()
        output.reserveCapacity(body.utf8.count * 5 / 8)
        var buffer: UInt64 = 0
        var bits = 0
        for byte in body.utf8 {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = byte - UInt8(ascii: "2") + 26
            default: return nil
            }
            buffer = buffer << 5 | UInt64(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(buffer >> UInt64(bits) & 0xff))
            }
        }
        return output
    }
}
