import Foundation

/// Lowercase hex, as Flow and Hyphen write keys, signatures, ids and addresses.
public enum Hex {
    /// Decodes hex digits (either case, optional `0x`); nil for an odd length or any other character.
    public static func decode(_ text: some StringProtocol) -> Data? {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        guard digits.utf8.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: digits.utf8.count / 2)
        var high: UInt8?
        for unit in digits.utf8 {
            guard let nibble = nibble(unit) else { return nil }
            if let pending = high {
                bytes.append(pending << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }

    private static func nibble(_ unit: UInt8) -> UInt8? {
        switch unit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): unit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): unit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): unit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Sequence<UInt8> {
    /// Lowercase hex without a prefix: bytes, and digests as they are stored.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
