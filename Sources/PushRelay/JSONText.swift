/// JSON text for the relay's string maps, written directly: a send stores one or two and answers with one, and
/// `JSONEncoder` costs more than the rest of the answer.
enum JSONText {
    /// `{"name":"value",...}`, its names sorted as `JSONEncoder`'s `.sortedKeys` sorts them.
    static func object(_ fields: [String: String]) -> String {
        var text = ""
        appendObject(fields, to: &text)
        return text
    }

    static func appendObject(_ fields: [String: String], to text: inout String) {
        text += "{"
        for (index, (name, value)) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { text += "," }
            appendString(name, to: &text)
            text += ":"
            appendString(value, to: &text)
        }
        text += "}"
    }

    /// A JSON string literal (RFC 8259 §7): quotes, backslashes and control characters escaped, the rest as is.
    static func appendString(_ value: String, to text: inout String) {
        text += "\""
        var unescapedStart = value.utf8.startIndex
        for index in value.utf8.indices {
            let byte = value.utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            text += value[unescapedStart..<index]
            switch byte {
            case UInt8(ascii: "\""): text += "\\\""
            case UInt8(ascii: "\\"): text += "\\\\"
            case UInt8(ascii: "\n"): text += "\\n"
            case UInt8(ascii: "\r"): text += "\\r"
            case UInt8(ascii: "\t"): text += "\\t"
            case 0x08: text += "\\b"
            case 0x0C: text += "\\f"
            default: text += "\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            }
            unescapedStart = value.utf8.index(after: index)
        }
        text += value[unescapedStart...]
        text += "\""
    }
}
