import Testing
@testable import PushRelay

@Suite("Secret digests")
struct SecretDigestTests {
    // FIPS 180-4, appendix B.1: SHA-256("abc"). Pins that stored digests are plain SHA-256 of the UTF-8 secret, so
    // databases written by earlier versions keep matching.
    @Test func digestIsSHA256OfTheUTF8Secret() {
        let hex = secretDigest("abc").map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func secretComparison() {
        let digest = secretDigest("correct horse")
        #expect(secretMatches("correct horse", digest: digest))
        #expect(!secretMatches("correct horsf", digest: digest))
        #expect(!secretMatches("", digest: digest))
        #expect(!constantTimeEquals([1, 2], [1, 2, 3]))
    }
}
