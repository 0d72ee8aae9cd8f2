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

    @Test func outputsCanonicalForms() {
        let data = Data([0xfb, 0xff, 0xfe])
        #expect(data.standardBase64 == "+//+")
        #expect(data.base64URLUnpadded == "-__-")
        #expect(Data("ab".utf8).base64URLUnpadded == "YWI")
    }
}
