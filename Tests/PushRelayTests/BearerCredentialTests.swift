@testable import PushRelay
import Testing

/// The credential every device poll and every send presents.
struct BearerCredentialTests {
    @Test(arguments: [
        ("Bearer abc", "abc"),
        ("bearer abc", "abc"),
        ("BEARER abc", "abc"),
        ("Bearer   abc\t ", "abc"),
        ("Bearer \tab c", "ab c"),
        ("Bearer é-ü", "é-ü"),
    ])
    func theCredentialIsWhatFollowsTheScheme(header: String, credential: String) {
        #expect(bearerCredential(authorization: header) == credential)
    }

    @Test(arguments: ["Bearer", "Bearer ", "Bearer    ", "Basic abc", "Bearerabc", "Bearer\tabc", "Token abc", ""])
    func anythingElseIsNoCredential(header: String) {
        #expect(bearerCredential(authorization: header) == nil)
    }
}
