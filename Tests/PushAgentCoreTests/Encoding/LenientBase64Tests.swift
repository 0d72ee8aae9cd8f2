import Foundation
import Testing
@testable import PushAgentCore

@Suite struct LenientBase64Tests {
    // protocols.md §1.1: the same secret appears URL-safe unpadded and standard padded.
    @Test func decodesBothAlphabetsWithAndWithoutPadding() {
        let expected = Data(base64Encoded: "b3uYLkQ7dRPjBaIzV0t/aijoXRgMq+NP5AwVAvRfa/E=")!
        #expect(LenientBase64.decode("b3uYLkQ7dRPjBaIzV0t_aijoXRgMq-NP5AwVAvRfa_E") == expected)
        #expect(LenientBase64.decode("b3uYLkQ7dRPjBaIzV0t/aijoXRgMq+NP5AwVAvRfa/E=") == expected)
        #expect(LenientBase64.decode("b3uYLkQ7dRPjBaIzV0t_aijoXRgMq-NP5AwVAvRfa_E=") == expected)
        #expect(LenientBase64.decodeText("YW1sYmNvb2tpZT0wMQ") == "amlbcookie=01")
        #expect(LenientBase64.decodeText("YW1sYmNvb2tpZT0wMQ==") == "amlbcookie=01")
    }

    @Test(arguments: ["a", "abcde", "ab cd", "ab=cd", "ab$d", "YW1s\n"])
    func rejectsGarbage(_ text: String) {
        #expect(LenientBase64.decode(text) == nil)
    }

    /// It reads bytes now, not characters: the answers are the same, for text that mixes in what is not base64
    /// (non-ASCII, combining marks after `=`, whitespace) as for text that is.
    @Test func readsAsTheCharacterByCharacterDecoderDid() {
        func byCharacter(_ text: String) -> Data? {
            var body = Substring(text)
            while body.last == "=" { body.removeLast() }
            guard body.count % 4 != 1 else { return nil }
            var normalized = ""
            for character in body {
                switch character {
                case "-": normalized.append("+")
                case "_": normalized.append("/")
                case "A"..."Z", "a"..."z", "0"..."9", "+", "/": normalized.append(character)
                default: return nil
                }
            }
            normalized.append(String(repeating: "=", count: (4 - normalized.utf8.count % 4) % 4))
            return Data(base64Encoded: normalized)
        }
        let pieces = ["A", "b", "9", "+", "/", "-", "_", "=", "==", " ", "\n", "é", "e\u{301}", "=\u{301}", "🔐", "\u{0}", "."]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(LenientBase64.decode(text) == byCharacter(text), "\(text.unicodeScalars.map { $0.escaped(asASCII: true) })")
        }
    }

    @Test func outputsCanonicalForms() {
        let data = Data([0xfb, 0xff, 0xfe])
        #expect(data.standardBase64 == "+//+")
        #expect(data.base64URLUnpadded == "-__-")
        #expect(Data("ab".utf8).base64URLUnpadded == "YWI")
    }
}
