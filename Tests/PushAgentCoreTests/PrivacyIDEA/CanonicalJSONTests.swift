import Foundation
@testable import PushAgentCore
import Testing

/// RFC 8785 (JCS) examples, and privacyIDEA's reference vector PI-JCS.
@Suite struct CanonicalJSONTests {
    private func canonical(_ json: String) throws -> String {
        CanonicalJSON.serialize(try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)))
    }

    // RFC 8785 §3.2.2: the "sample" input and its canonical form.
    @Test func rfc8785Sample() throws {
        let input = #"""
        {
          "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }
        """#
        #expect(try canonical(input)
                == #"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#)
    }

    // RFC 8785 §3.2.3: keys sort by UTF-16 code units.
    @Test func rfc8785Sorting() throws {
        let input = #"{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}"#
        let expected = "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\","
            + "\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\","
            + "\"\u{FB33}\":\"Hebrew Letter Dalet With Dagesh\"}"
        #expect(try canonical(input) == expected)
    }

    // RFC 8785 Appendix B: IEEE 754 → JSON number examples.
    @Test func rfc8785Numbers() {
        // The inputs as JSON texts: several are not exactly representable, which is the point.
        let cases: [(String, String)] = [
            ("0", "0"), ("-0.0", "0"), ("5e-324", "5e-324"), ("1.7976931348623157e308", "1.7976931348623157e+308"),
            ("9007199254740992", "9007199254740992"), ("-9007199254740992", "-9007199254740992"),
            ("295147905179352830000", "295147905179352830000"), ("9.999999999999997e22", "9.999999999999997e+22"),
            ("1e23", "1e+23"), ("1e21", "1e+21"), ("999999999999999700000", "999999999999999700000"),
            ("0.000001", "0.000001"), ("0.0000001", "1e-7"), ("333333333.33333329", "333333333.3333333"), ("4.50", "4.5"),
        ]
        for (json, text) in cases { #expect(CanonicalJSON.ecmaScriptString(Double(json)!) == text, "\(json)") }
    }

    // PI-JCS (LITERAL): privacyidea tests/test_lib_tokens_push.py test_02_signed_bytes_reference_vector.
    @Test func privacyIDEAReferenceVector() {
        #expect(PrivacyIDEACapabilities.signingInput(capabilities: .object(["decline_reason": .bool(true)]), nonce: "ABC123")
                == #"{"capabilities":{"decline_reason":true},"nonce":"ABC123"}"#)
        #expect(PrivacyIDEACapabilities.signingInput(capabilities: .object(["decline_reason": .bool(true)]), nonce: PIVectors.nonce)
                == PIVectors.capabilitiesInput)
    }
}
