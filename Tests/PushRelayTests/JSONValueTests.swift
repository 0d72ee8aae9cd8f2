import Foundation
import Testing
@testable import PushRelay

struct JSONValueTests {
    @Test func everyJSONTypeIsToldApart() throws {
        let parsed = JSONValue.parse(Data(#"{"t": true, "f": false, "one": 1, "zero": 0, "half": 0.5, "s": "1", "n": null, "a": [true, 1, "x", {}]}"#.utf8))
        #expect(parsed == .object([
            "t": .bool(true), "f": .bool(false), "one": .number(1), "zero": .number(0), "half": .number(0.5),
            "s": .string("1"), "n": .null, "a": .array([.bool(true), .number(1), .string("x"), .object([:])]),
        ]))
    }

    @Test func fragmentsAndNonJSON() {
        #expect(JSONValue.parse(Data("\"text\"".utf8)) == .string("text"))
        #expect(JSONValue.parse(Data("[]".utf8)) == .array([]))
        for invalid in ["", "{", "{\"a\": }", "nul", "{\"a\": 1} x"] {
            #expect(JSONValue.parse(Data(invalid.utf8)) == nil, "\(invalid)")
        }
    }
}
