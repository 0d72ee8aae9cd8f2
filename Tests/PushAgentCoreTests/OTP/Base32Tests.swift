import Foundation
import Testing
import PushAgentCore

@Suite struct Base32Tests {
    // RFC 4648 §10 test vectors.
    static let vectors = [("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="), ("foob", "MZXW6YQ="),
                          ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI======")]

    @Test(arguments: vectors)
    func rfc4648(_ plain: String, _ encoded: String) {
        #expect(Base32.encode(Data(plain.utf8)) == encoded)
        #expect(Base32.decode(encoded) == Data(plain.utf8))
        #expect(Base32.decode(encoded.replacingOccurrences(of: "=", with: "").lowercased()) == Data(plain.utf8))
    }

    @Test(arguments: ["M", "MZX", "MZXW6Y", "MZ1W", "MZ-W"])
    func rejectsInvalid(_ text: String) {
        #expect(Base32.decode(text) == nil)
    }
}
