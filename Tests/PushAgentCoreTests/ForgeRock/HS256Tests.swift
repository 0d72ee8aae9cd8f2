import Foundation
import Testing
@testable import PushAgentCore

@Suite struct HS256Tests {
    struct GenericClaims: Codable, Sendable, Equatable {
        var iss: String
        var iat: Int
        var exp: Int
        var aud: String
        var sub: String
    }

    // FR-JWT-1: forgerock-ios-sdk FRCompactJWTTests.swift test_02/03 — valid under the padded and the unpadded secret.
    @Test(arguments: [FRVectors.jwt1Secret, "cXdlcnR5dWlvcGFzZGZnaGprbHp4Y3Zibm0xMjM0NTY"])
    func frJWT1(_ secret: String) async throws {
        let claims = try await HS256.verify(FRVectors.jwt1, key: LenientBase64.decode(secret)!, as: GenericClaims.self)
        #expect(claims == GenericClaims(iss: "ForgeRock", iat: 1_588_629_070, exp: 1_620_165_070, aud: "www.forgerock.com",
                                        sub: "james.go@forgerock.com"))
    }

    // FR-JWT-1 test_06: an HS384 header is unsupported, even when correctly MACed with HS256 over the same bytes.
    @Test func frJWT1HS384() async {
        let payload = String(FRVectors.jwt1.split(separator: ".")[1])
        let key = LenientBase64.decode(FRVectors.jwt1Secret)!
        let token = TestJWT.sign(header: FRVectors.hs384Header, payload: payload, key: key)
        await #expect(throws: JWSError.algorithmNotAllowed("HS384", allowed: "HS256")) {
            try await HS256.verify(token, key: key, as: GenericClaims.self)
        }
    }

    @Test func shortKeysAreRefusedBeforeJWTKitSeesThem() async {
        await #expect(throws: JWSError.keyTooShort(bytes: 10)) {
            try await HS256.sign(GenericClaims(iss: "", iat: 0, exp: 0, aud: "", sub: ""), key: Data("testsecret".utf8))
        }
        await #expect(throws: JWSError.keyTooShort(bytes: 31)) {
            try await HS256.verify(FRVectors.jwt1, key: Data(repeating: 1, count: 31), as: GenericClaims.self)
        }
    }

    @Test func signsWhatItVerifies() async throws {
        let key = Data(repeating: 42, count: 32)
        let claims = GenericClaims(iss: "a/b+c", iat: 1, exp: 2, aud: "x", sub: "y")
        let token = try await HS256.sign(claims, key: key)
        #expect(try CompactJWS.algorithm(of: token) == "HS256")
        #expect(try await HS256.verify(token, key: key, as: GenericClaims.self) == claims)
        await #expect(throws: JWSError.badSignature) {
            try await HS256.verify(token, key: Data(repeating: 43, count: 32), as: GenericClaims.self)
        }
    }

    /// The pinned `alg` is read from the header alone: a header that is not a JSON object is malformed, and an `alg`
    /// that is missing or not a string names none, whatever else the header holds.
    @Test(arguments: [
        (#"{"alg":"HS256","typ":"JWT"}"#, "HS256"), (#"{"alg":"HS256","x":{"y":[1e400,null,true]}}"#, "HS256"),
        (#"{"typ":"JWT"}"#, nil), (#"{"alg":256}"#, nil), (#"{"alg":null}"#, nil), (#"{"alg":["HS256"]}"#, nil),
    ] as [(String, String?)])
    func theAlgorithmIsReadFromTheHeader(_ header: String, _ algorithm: String?) throws {
        #expect(try CompactJWS.algorithm(of: "\(TestJWT.payloadSegment(header)).e30.x") == algorithm)
    }

    @Test(arguments: ["[1]", #""HS256""#, "{", "not json"])
    func aHeaderThatIsNotAnObjectIsMalformed(_ header: String) {
        #expect(throws: JWSError.malformed("the JWT header is not base64url JSON")) {
            try CompactJWS.algorithm(of: "\(TestJWT.payloadSegment(header)).e30.x")
        }
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", ".b.c", "!!.b.c", "\(TestJWT.payloadSegment("[1]")).e30.x"])
    func malformedTokens(_ token: String) async {
        await #expect(throws: JWSError.self) {
            try await HS256.verify(token, key: Data(repeating: 1, count: 32), as: [String: String].self)
        }
    }
}
