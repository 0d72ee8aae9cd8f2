/// RFC 8785 JSON Canonicalization Scheme (JCS): the one byte sequence a JSON value signs as, whoever serialized it.
/// Written here because no kept Swift library implements it; tested against the RFC's own examples.
public enum CanonicalJSON {
    public static func serialize(_ value: JSONValue) -> String {
        var output = ""
        write(value, to: &output)
        return output
    }

    private static func write(_ value: JSONValue, to output: inout String) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let number): output += ecmaScriptString(number)
        case .string(let text): writeString(text, to: &output)
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                write(item, to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            // §3.2.3: keys sort by their UTF-16 code units, not by scalars or bytes.
            let keys = members.keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
            for (index, key) in keys.enumerated() {
                if index > 0 { output += "," }
                writeString(key, to: &output)
                output += ":"
                write(members[key]!, to: &output)
            }
            output += "}"
        }
    }

    /// §3.2.2.2: only `"`, `\` and control characters are escaped, with the short forms where JSON has them.
    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    /// §3.2.2.3: ECMAScript's Number-to-String, built from Swift's shortest round-trip digits.
    static func ecmaScriptString(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == 0 { return "0" }
        let (negative, digits, pointPosition) = decimalParts(of: number)
        let k = digits.count, n = pointPosition
        var text: String
        if k <= n && n <= 21 {
            text = digits + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            text = String(digits.prefix(n)) + "." + String(digits.dropFirst(n))
        } else if -6 < n && n <= 0 {
            text = "0." + String(repeating: "0", count: -n) + digits
        } else {
            let exponent = n - 1
            text = String(digits.prefix(1)) + (k > 1 ? "." + String(digits.dropFirst()) : "")
                + "e" + (exponent >= 0 ? "+" : "-") + String(abs(exponent))
        }
        if negative { text = "-" + text }
        return text
    }

    /// The significant digits (no leading or trailing zeros) and where the decimal point goes:
    /// value = 0.d1d2…dk × 10^pointPosition.
    private static func decimalParts(of number: Double) -> (negative: Bool, digits: String, pointPosition: Int) {
        var text = "\(number.magnitude)"
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...])!
            text = String(text[..<e])
        }
        let point = text.firstIndex(of: ".")
        let integerPart = point.map { String(text[..<$0]) } ?? text
        let fractionPart = point.map { String(text[text.index(after: $0)...]) } ?? ""
        var digits = integerPart + fractionPart
        var pointPosition = integerPart.count + exponent
        while digits.first == "0" {
            digits.removeFirst()
            pointPosition -= 1
        }
        while digits.last == "0" { digits.removeLast() }
        return (number < 0, digits, pointPosition)
    }
}
