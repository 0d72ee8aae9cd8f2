import Foundation
import RelayWire

/// Reads a UTF-8 JSON document (RFC 8259) into `JSONValue`, and notes the first name an object repeats
/// (`{"a": "1", "a": "2"}`), which Google's JSON parsers refuse and so does the relay: which value counts would
/// otherwise depend on the parser. Written here because the send API reads every body: through `JSONSerialization`,
/// with a second pass for repeated names, reading took a twenty-fifth of the relay's CPU a delivered message.
///
/// It refuses what `JSONSerialization` refuses and reads what it reads (checked both ways in JSONReaderTests; the send
/// body's fuzzer checks that what it reads, Foundation reads), with one difference made on purpose: a trailing comma
/// (`[1,]`, `{"a": 1,}`), which RFC 8259 does not allow, is refused. A U+FEFF at the start of a string is kept, where
/// `JSONSerialization` dropped it.
struct JSONReader {
    struct RepeatedName: Equatable {
        var key: String
        /// Dotted names of the objects leading to it ("message.data"); empty at the top.
        var path: String
    }

    struct Document {
        var value: JSONValue
        var repeatedName: RepeatedName?
    }

    /// Arrays and objects nested deeper are refused, as `JSONSerialization` refuses them; the reader recurses.
    static let maximumDepth = 512

    /// Nil when `data` is not one JSON document. A UTF-8 byte order mark before it is skipped.
    static func read(_ data: Data) -> Document? {
        data.withUnsafeBytes { raw in
            var reader = JSONReader(bytes: raw.bindMemory(to: UInt8.self))
            return reader.document()
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    /// The names of the members being read, outermost first.
    private var names: [String] = []
    private var repeatedName: RepeatedName?

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private mutating func document() -> Document? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        guard let value = value() else { return nil }
        skipWhitespace()
        return index == bytes.count ? Document(value: value, repeatedName: repeatedName) : nil
    }

    private mutating func value() -> JSONValue? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func object() -> JSONValue? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { return nil }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if consume("}") { return .object(members) }
        repeat {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let name = string() else { return nil }
            skipWhitespace()
            guard consume(":") else { return nil }
            // Noted before the member's value is read, so that the first repeat in the text is the one told.
            if repeatedName == nil, members[name] != nil {
                // An empty name adds no dot where the path is still empty, as the scanner this replaced wrote it.
                repeatedName = RepeatedName(key: name, path: names.reduce("") { $0.isEmpty ? $1 : $0 + "." + $1 })
            }
            names.append(name)
            let member = value()
            names.removeLast()
            guard let member else { return nil }
            members[name] = member
            skipWhitespace()
        } while consume(",")
        return consume("}") ? .object(members) : nil
    }

    private mutating func array() -> JSONValue? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { return nil }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume("]") { return .array(elements) }
        repeat {
            guard let element = value() else { return nil }
            elements.append(element)
            skipWhitespace()
        } while consume(",")
        return consume("]") ? .array(elements) : nil
    }

    /// From the opening quote; nil for a control character, a bad escape, a lone surrogate or bytes that are not
    /// UTF-8.
    private mutating func string() -> String? {
        index += 1
        let start = index
        var isASCII = true
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                // Validation is generic and not specialized: most strings skip it.
                return isASCII ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                return escapedString(from: start)
            case ..<0x20:
                return nil
            case 0x80...:
                isASCII = false
                index += 1
            default:
                index += 1
            }
        }
        return nil
    }

    /// The rest of a string from its first escape.
    private mutating func escapedString(from start: Int) -> String? {
        var decoded = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let scalar = escape() else { return nil }
                decoded.append(contentsOf: UTF8.encode(scalar)!)
            case ..<0x20:
                return nil
            default:
                decoded.append(byte)
            }
        }
        return nil
    }

    /// After a backslash.
    private mutating func escape() -> Unicode.Scalar? {
        guard index < bytes.count else { return nil }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(letter)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let unit = hexUnit() else { return nil }
            guard (0xD800...0xDBFF).contains(unit) else { return Unicode.Scalar(unit) } // nil for a lone low surrogate
            guard consume("\\"), consume("u"), let low = hexUnit(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
        default:
            return nil
        }
    }

    /// The four hex digits of a `\u` escape.
    private mutating func hexUnit() -> UInt16? {
        guard bytes.count - index >= 4 else { return nil }
        var unit: UInt16 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        index += 4
        return unit
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`; one too large for a Double is refused.
    private mutating func number() -> JSONValue? {
        let start = index
        _ = consume("-")
        if !consume("0") {
            guard digits() else { return nil }
        }
        if consume(".") {
            guard digits() else { return nil }
        }
        if consume("e") || consume("E") {
            if !consume("+") { _ = consume("-") }
            guard digits() else { return nil }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else { return nil }
        return .number(number)
    }

    /// One or more.
    private mutating func digits() -> Bool {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index > start
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
            return nil
        }
        index += expected.count
        return value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    private mutating func consume(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }
}
