import Foundation

/// Finds a name an object repeats (`{"a": "1", "a": "2"}`), which `JSONSerialization` resolves silently by keeping
/// the last. Google's JSON parsers refuse a repeated field or map key, and so does the relay, where the answer
/// would otherwise depend on which value a parser keeps.
enum JSONDuplicateKeys {
    struct Found: Equatable {
        var key: String
        /// Dotted names of the objects leading to it ("message.data"); empty at the top.
        var path: String
    }

    /// The first repeated name in `data`, a UTF-8 document `JSONSerialization` has accepted; nil when there is none.
    /// (It reads bytes as UTF-8: run on UTF-16 it would find nonsense, though never crash.)
    static func first(in data: Data) -> Found? {
        data.withUnsafeBytes { first(in: $0.bindMemory(to: UInt8.self)) }
    }

    private struct Container {
        var keys: Set<String>? // nil for an array
        var path: String
        var expectsKey: Bool
    }

    private static func first(in bytes: UnsafeBufferPointer<UInt8>) -> Found? {
        var stack: [Container] = []
        var lastKey = ""
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let path: String
                if let parent = stack.last {
                    path = parent.keys == nil ? parent.path : (parent.path.isEmpty ? lastKey : parent.path + "." + lastKey)
                } else {
                    path = ""
                }
                stack.append(Container(keys: byte == UInt8(ascii: "{") ? [] : nil, path: path, expectsKey: true))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !stack.isEmpty else { return nil }
                stack.removeLast()
            case UInt8(ascii: ","):
                if stack.last?.keys != nil { stack[stack.count - 1].expectsKey = true }
            case UInt8(ascii: "\""):
                let end = endOfString(bytes, from: index)
                guard end < bytes.count else { return nil }
                if let top = stack.last, top.keys != nil, top.expectsKey {
                    let key = decodeKey(UnsafeBufferPointer(rebasing: bytes[index...end]))
                    guard stack[stack.count - 1].keys!.insert(key).inserted else { return Found(key: key, path: top.path) }
                    stack[stack.count - 1].expectsKey = false
                    lastKey = key
                }
                index = end
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The index of the quote that closes the string opening at `start`.
    private static func endOfString(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        return index
    }

    /// A key with its quotes; escaped ones are decoded, so that `"\u0061"` and `"a"` are the same name.
    private static func decodeKey(_ token: UnsafeBufferPointer<UInt8>) -> String {
        let inner = UnsafeBufferPointer(rebasing: token.dropFirst().dropLast())
        guard inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
        let decoded = try? JSONSerialization.jsonObject(with: Data(token), options: .fragmentsAllowed) as? String
        return decoded ?? String(decoding: inner, as: UTF8.self)
    }
}
