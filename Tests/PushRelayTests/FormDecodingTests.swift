import Testing
@testable import PushRelay

@Suite("Form and query decoding")
struct FormDecodingTests {
    /// Text with nothing to decode skips Foundation's decoding; the rest goes through it as before.
    @Test(arguments: [
        ("after=12", "after=12"), ("", ""), ("a+b", "a b"), ("a%2Bb", "a+b"), ("%E2%9C%93", "✓"), ("é", "é"),
    ])
    func decodes(text: String, expected: String) {
        #expect(formDecode(Substring(text)) == expected)
    }

    @Test(arguments: ["%zz", "%", "a%2"])
    func refusesABrokenEscape(text: String) {
        #expect(formDecode(Substring(text)) == nil)
    }
}
