/// Unpadded URL-safe base64 (RFC 4648 §5), as the relay writes a Web Push body into a device's queue
/// (`WebPushDataKey.body`) and its tokens and keys: a table encoder straight into the string's UTF-8 storage.
/// Foundation's `base64EncodedString` and three `replacingOccurrences` took 1.2 ms a 4096-byte body (docs/benchmarks.md,
/// "Web Push ... (issue 45)").
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The length of `byteCount` bytes encoded: 4 characters per 3 bytes, 2 or 3 for the 1 or 2 left over.
    public static func encodedCount(_ byteCount: Int) -> Int {
        let left = byteCount % 3
        return byteCount / 3 * 4 + (left == 0 ? 0 : left + 1)
    }

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        if let text = bytes.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0)) }) { return text }
        return Array(bytes).withUnsafeBytes { encode($0) }
    }

    public static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        let count = bytes.count
        return alphabet.withUnsafeBufferPointer { table in
            String(unsafeUninitializedCapacity: encodedCount(count)) { out in
                var input = 0, output = 0
                while input + 3 <= count {
                    let b0 = bytes[input], b1 = bytes[input + 1], b2 = bytes[input + 2]
                    out[output] = table[Int(b0 >> 2)]
                    out[output + 1] = table[Int((b0 & 0x03) << 4 | b1 >> 4)]
                    out[output + 2] = table[Int((b1 & 0x0f) << 2 | b2 >> 6)]
                    out[output + 3] = table[Int(b2 & 0x3f)]
                    input += 3
                    output += 4
                }
                switch count - input {
                case 1:
                    let b0 = bytes[input]
                    out[output] = table[Int(b0 >> 2)]
                    out[output + 1] = table[Int((b0 & 0x03) << 4)]
                    output += 2
                case 2:
                    let b0 = bytes[input], b1 = bytes[input + 1]
                    out[output] = table[Int(b0 >> 2)]
                    out[output + 1] = table[Int((b0 & 0x03) << 4 | b1 >> 4)]
                    out[output + 2] = table[Int((b1 & 0x0f) << 2)]
                    output += 3
                default:
                    break
                }
                return output
            }
        }
    }
}
