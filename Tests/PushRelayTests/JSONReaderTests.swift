import ClusterHarness
import Foundation
import RelayWire
import Testing
@testable import PushRelay

struct JSONReaderTests {
    private func read(_ text: String) -> JSONValue? { JSONReader.read(Data(text.utf8))?.value }

    @Test func everyJSONTypeIsToldApart() throws {
        let parsed = read(#"{"t": true, "f": false, "one": 1, "zero": 0, "half": 0.5, "s": "1", "n": null, "a": [true, 1, "x", {}]}"#)
        #expect(parsed == .object([
            "t": .bool(true), "f": .bool(false), "one": .number(1), "zero": .number(0), "half": .number(0.5),
            "s": .string("1"), "n": .null, "a": .array([.bool(true), .number(1), .string("x"), .object([:])]),
        ]))
    }

    @Test func fragmentsAndNonJSON() {
        #expect(read("\"text\"") == .string("text"))
        #expect(read(" [ ] \r\n") == .array([]))
        #expect(read("-0.5e+2") == .number(-50))
        for invalid in ["", " ", "{", "{\"a\": }", "nul", "{\"a\": 1} x", "[1,]", "{\"a\": 1,}", "[,1]", "{,}", "[1 2]",
                        "{\"a\" 1}", "{1: 2}", "['a']", "[01]", "[1.]", "[.5]", "[+1]", "[1e]", "[0x1]", "[1e400]", "[NaN]",
                        "[TRUE]", "[truex]", "[1]//", "\"a\u{01}b\"", "\"a\tb\"", #""\x""#, #""\u12""#, "\"open"] {
            #expect(read(invalid) == nil, "\(invalid.debugDescription)")
        }
    }

    @Test func escapesAndUnicode() {
        #expect(read(#""\"\\\/\b\f\n\r\t\u0041\u00e9\u0000""#) == .string("\"\\/\u{08}\u{0C}\n\r\tAé\u{0}"))
        #expect(read(#""\ud83d\ude00 \uD83D\uDE00""#) == .string("😀 😀"))
        #expect(read("\"é✓😀\u{7F}\"") == .string("é✓😀\u{7F}"))
        for lone in [#""\ud800""#, #""\udc00x""#, #""\ud83d\u0041""#, #""\ud83d""#, #""\ud83dx""#] {
            #expect(read(lone) == nil, "\(lone)")
        }
        let notUTF8: [[UInt8]] = [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x9C], [0xF4, 0x90, 0x80, 0x80]]
        for bytes in notUTF8 {
            #expect(JSONReader.read(Data([UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")])) == nil, "\(bytes)")
            #expect(JSONReader.read(Data(Array(#""\n"#.utf8) + bytes + [UInt8(ascii: "\"")])) == nil, "escaped, \(bytes)")
        }
        #expect(JSONReader.read(Data([0xEF, 0xBB, 0xBF] + Array("{}".utf8)))?.value == .object([:]), "a UTF-8 BOM")
        // Inside a string it is a character like any other (JSONSerialization dropped one that began a string).
        #expect(read("\"\u{FEFF}k\"") == .string("\u{FEFF}k"))
    }

    @Test func nestingIsBoundedAsJSONSerializationBoundsIt() {
        func nested(_ depth: Int) -> String { String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }
        #expect(read(nested(JSONReader.maximumDepth)) != nil)
        #expect(read(nested(JSONReader.maximumDepth + 1)) == nil)
        #expect((try? JSONSerialization.jsonObject(with: Data(nested(512).utf8))) != nil)
        #expect((try? JSONSerialization.jsonObject(with: Data(nested(513).utf8))) == nil)
        #expect(read(nested(100_000)) == nil)
        #expect(read(String(repeating: "{\"a\":", count: 600) + "1" + String(repeating: "}", count: 600)) == nil)
    }

    @Test func theFirstRepeatedNameInTheTextIsTold() {
        func repeated(_ text: String) -> JSONReader.RepeatedName? { JSONReader.read(Data(text.utf8))?.repeatedName }
        #expect(repeated(#"{"a": 1, "b": {"a": 2}}"#) == nil)
        #expect(repeated(#"{"a": 1, "a": 2}"#) == .init(key: "a", path: ""))
        #expect(repeated(#"{"message": {"data": {"k": "1", "\u006b": "2"}}}"#) == .init(key: "k", path: "message.data"))
        #expect(repeated(#"{"a": [{"x": 1, "x": 2}]}"#) == .init(key: "x", path: "a"))
        #expect(repeated(#"{"a": 1, "a": {"b": 1, "b": 2}}"#) == .init(key: "a", path: ""))
        #expect(repeated(#"{"a": {"b": 1, "b": 2}, "a": 1}"#) == .init(key: "b", path: "a"))
        #expect(repeated(#"{"": {"b": {"x": 1, "x": 2}}}"#) == .init(key: "x", path: "b"))
        #expect(repeated(#"{"": {"": {"x": 1, "x": 2}}}"#) == .init(key: "x", path: ""))
        #expect(JSONReader.read(Data(#"{"a": 1, "a": 2}"#.utf8))?.value == .object(["a": .number(2)]))
    }

    /// Every document here, and thousands of mutations of them, is read as `JSONSerialization` reads it: the same
    /// value, or refused by both, except a trailing comma, which only this reader refuses.
    @Test func readsWhatJSONSerializationReads() {
        let seeds = [
            #"{"message": {"token": "t", "data": {"k": "v", "n": "1"}, "android": {"ttl": "30s", "priority": "HIGH"}}}"#,
            #"{"validate_only": true, "message": {"notification": {"title": "é\u00e9\ud83d\ude00"}, "x": [1, -2.5e3, null, false]}}"#,
            #"[0, 1.25, -0, 1E2, 3e-2, "a\"b\\c\/d\n", {}, [], [[]], {"": ""}]"#,
        ]
        var random = SplitMix64(seed: 26)  // the same documents on every run
        let alphabet = Array(#"{}[]":,.-+eE0123456789 \tnulltruefalse\u00d8\ud83d"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
        var compared = 0
        for seed in seeds {
            for round in 0..<2_000 {
                var bytes = Array(seed.utf8)
                for _ in 0..<(round == 0 ? 0 : Int.random(in: 1...3, using: &random)) {
                    let at = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: bytes[at] = alphabet.randomElement(using: &random)!
                    case 1: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
                    default: if bytes.count > 1 { bytes.remove(at: at) }
                    }
                }
                let ours = JSONReader.read(Data(bytes))?.value
                let foundation = (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed))
                    .map(Self.value(foundation:))
                let text = String(decoding: bytes, as: UTF8.self)
                // Refused only for its trailing commas: without them, it is read.
                if ours == nil, foundation != nil, JSONReader.read(Data(text.replacingOccurrences(
                    of: #",(\s*[\]}])"#, with: "$1", options: .regularExpression).utf8)) != nil { continue }
                #expect(ours == foundation, "\(text.debugDescription)")
                compared += 1
            }
        }
        #expect(compared > 5_000)
    }

    private static let booleanClass: AnyClass = type(of: NSNumber(value: true))

    private static func value(foundation value: Any) -> JSONValue {
        switch value {
        case let string as String: .string(string)
        case let object as [String: Any]: .object(object.mapValues(Self.value(foundation:)))
        case let number as NSNumber:
            type(of: number) == booleanClass ? .bool(number.boolValue) : .number(number.doubleValue)
        case let array as [Any]: .array(array.map(Self.value(foundation:)))
        default: .null
        }
    }
}

