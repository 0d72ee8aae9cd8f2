import CryptoExtras
import Foundation
import Testing
@testable import PushAgentCore

/// Vectors from RFC 7515 Appendix A.2 (RS256) and A.3 (ES256), and RFC 7638 §3.1 (thumbprint).
enum JOSEVectors {
    static let payload = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"

    static let es256 = PlusAuthJWK(
        kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
        y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0", d: "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI")
    static let es256JWS = "eyJhbGciOiJFUzI1NiJ9.\(payload).DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    static let rs256 = PlusAuthJWK(
        kty: "RSA",
        n: "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ",
        e: "AQAB",
        d: "Eq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyWPEAeP88vLNO97IjlA7_GQ5sLKMgvfTeXZx9SE-7YwVol2NXOoAJe46sui395IW_GO-pWJ1O0BkTGoVEn2bKVRUCgu-GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzjkn439X0M_V51gfpRLI9JYanrC4D4qAdGcopV_0ZHHzQlBjudU2QvXt4ehNYTCBr6XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl_x_jTj3ccPDVZFD9pIuhLhBOneufuBiB4cS98l2SR_RQyGWSeWjnczT0QU91p1DhOVRuOopznQ",
        p: "4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH_5IB3jw3bcxGn6QLvnEtfdUdiYrqBdss1l58BQ3KhooKeQTa9AB0Hw_Py5PJdTJNPY8cQn7ouZ2KKDcmnPGBY5t7yLc1QlQ5xHdwW1VhvKn-nXqhJTBgIPgtldC-KDV5z-y2XDwGUc",
        q: "uQPEfgmVtjL0Uyyx88GZFF1fOunH3-7cepKmtH4pxhtCoHqpWmT8YAmZxaewHgHAjLYsp1ZSe7zFYHj7C6ul7TjeLQeZD_YwD66t62wDmpe_HlB-TnBA-njbglfIsRLtXlnDzQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdc",
        dp: "BwKfV3Akq5_MFZDFZCnW-wzl-CCo83WoZvnLQwCTeDv8uzluRSnm71I3QCLdhrqE2e9YkxvuxdBfpT_PI7Yz-FOKnu1R6HsJeDCjn12Sk3vmAktV2zb34MCdy7cpdTh_YVr7tss2u6vneTwrA86rZtu5Mbr1C1XsmvkxHQAdYo0",
        dq: "h_96-mK1R_7glhsum81dZxjTnYynPbZpHziZjeeHcXYsXaaMwkOlODsWa7I9xXDoRwbKgB719rrmI2oKr6N3Do9U0ajaHF-NKJnwgjMd2w9cjz3_-kyNlxAr2v4IKhGNpmM5iIgOS1VZnOZ68m6_pbLBSp3nssTdlqvd0tIiTHU",
        qi: "IYd7DHOhrWvxkwPQsRM2tOgrjbcrfvtQJipd-DlcxyVuuM9sQLdgjVk2oy26F0EmpScGLq2MowX7fhd_QJQ3ydy5cY7YIBi87w93IKLEdfnbJtoOPLUW0ITrJReOgo1cq9SbsxYawBgfp_gh6A5603k2-ZQwVK0JKSHuLFkuQ3U")
    static let rs256JWS = "eyJhbGciOiJSUzI1NiJ9.\(payload).cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"

    static let thumbprintKey = PlusAuthJWK(
        kty: "RSA",
        n: "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
        e: "AQAB", alg: "RS256", kid: "2011-04-29")
    static let thumbprint = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
}

/// The RFC 7515 payload: `{"iss":"joe", "exp":1300819380, "http://example.com/is_root":true}`.
struct RFCPayload: Codable, Sendable, Equatable {
    var iss: String
    var exp: Int
}

@Suite struct PlusAuthKeyTests {
    @Test func rfc7638Thumbprint() {
        #expect(JOSEVectors.thumbprintKey.thumbprint == JOSEVectors.thumbprint)
        #expect(PlusAuthJWK(kty: "EC", crv: "P-256", x: "x").thumbprint == nil, "a key without 'y' has no thumbprint")
    }

    @Test func verifiesRFC7515Signatures() async throws {
        for (key, algorithm, jws) in [(JOSEVectors.es256, PlusAuthAlgorithm.es256, JOSEVectors.es256JWS),
                                      (JOSEVectors.rs256, .rs256, JOSEVectors.rs256JWS)] {
            let payload = try await PlusAuthJWS.verify(jws, key: key, algorithm: algorithm, as: RFCPayload.self)
            #expect(payload == RFCPayload(iss: "joe", exp: 1_300_819_380))
            let other: PlusAuthAlgorithm = algorithm == .es256 ? .rs256 : .es256
            await #expect(throws: JWSError.algorithmNotAllowed(algorithm.rawValue, allowed: other.rawValue)) {
                try await PlusAuthJWS.verify(jws, key: key, algorithm: other, as: RFCPayload.self)
            }
        }
    }

    /// RS256 is deterministic: the RFC key must produce the RFC's signature over the RFC's signing input.
    @Test func rs256ExportIsTheRFCKeyWithItsCRTMembers() throws {
        let key = JOSEVectors.rs256
        let backing = try _RSA.Signing.PrivateKey(
            n: LenientBase64.decode(key.n!)!, e: LenientBase64.decode(key.e!)!, d: LenientBase64.decode(key.d!)!,
            p: LenientBase64.decode(key.p!)!, q: LenientBase64.decode(key.q!)!)
        #expect(try PlusAuthKeys.rsaJWK(backing) == key)
        let input = Data(JOSEVectors.rs256JWS.split(separator: ".").prefix(2).joined(separator: ".").utf8)
        let signature = try backing.signature(for: input, padding: .insecurePKCS1v1_5)
        #expect(signature.rawRepresentation.base64URLUnpadded == String(JOSEVectors.rs256JWS.split(separator: ".")[2]))
    }

    @Test(arguments: PlusAuthAlgorithm.allCases)
    func generatedKeysSignAndVerify(_ algorithm: PlusAuthAlgorithm) async throws {
        let key = try PlusAuthKeys.generate(algorithm)
        #expect(key.alg == algorithm.rawValue && key.use == "sig" && key.kid == key.thumbprint && key.isPrivate)
        #expect(!key.publicKey.isPrivate && key.publicKey.hasSamePublicKey(as: key))
        if algorithm == .rs256 {
            #expect([key.p, key.q, key.dp, key.dq, key.qi].allSatisfy { $0 != nil }, "CRT members exported")
            #expect(LenientBase64.decode(key.n!)!.count == 256, "2048-bit modulus without a leading zero")
        } else {
            #expect(key.crv == "P-256" && LenientBase64.decode(key.d!)!.count == 32)
        }
        let token = try await PlusAuthJWS.sign(RFCPayload(iss: "pushagent", exp: 1), key: key, algorithm: algorithm)
        #expect(try await PlusAuthJWS.verify(token, key: key.publicKey, algorithm: algorithm, as: RFCPayload.self).iss == "pushagent")
        let stranger = try PlusAuthKeys.generate(algorithm)
        await #expect(throws: JWSError.badSignature) {
            try await PlusAuthJWS.verify(token, key: stranger.publicKey, algorithm: algorithm, as: RFCPayload.self)
        }
    }

    @Test func mismatchedOrWrongKeysAreRefused() async throws {
        var mixed = try PlusAuthKeys.generate(.es256)
        mixed.d = JOSEVectors.es256.d
        await #expect(throws: JWSError.malformed("the private key 'd' does not belong to the public key 'x', 'y'")) {
            try await mixed.keyCollection(for: .es256)
        }
        await #expect(throws: JWSError.malformed("an RS256 key must have kty RSA, not 'EC'")) {
            try await JOSEVectors.es256.keyCollection(for: .rs256)
        }
        var otherCurve = JOSEVectors.es256
        otherCurve.crv = "P-384"
        await #expect(throws: JWSError.malformed("an ES256 key must be on curve P-256")) {
            try await otherCurve.keyCollection(for: .es256)
        }
        await #expect(throws: JWSError.malformed("signing needs the private key")) {
            try await PlusAuthJWS.sign(RFCPayload(iss: "x", exp: 1), key: JOSEVectors.es256.publicKey, algorithm: .es256)
        }
    }

    /// Found by FuzzJOSE: from n, e and d alone swift-crypto factors n itself, trapping on an even n and looping
    /// forever on n = 3 (Fuzz/Corpus/FuzzJOSE/crash-rsa-jwk-even-modulus, hang-rsa-jwk-modulus-3).
    @Test func craftedRSAKeysAreRefusedBeforeSwiftCrypto() async throws {
        for (n, bits) in [("BA", 3), ("Aw", 2)] {
            let crafted = PlusAuthJWK(kty: "RSA", n: n, e: "AQAB", d: "AQ")
            await #expect(throws: JWSError.malformed("an RS256 key's modulus 'n' must be odd and at least 2048 bits, not \(bits)")) {
                try await crafted.keyCollection(for: .rs256)
            }
        }
        var withoutPrimes = JOSEVectors.rs256
        withoutPrimes.p = nil
        await #expect(throws: JWSError.malformed("an RS256 private key must carry its primes 'p' and 'q'")) {
            try await withoutPrimes.keyCollection(for: .rs256)
        }
        var evenModulus = JOSEVectors.rs256.publicKey
        var modulus = LenientBase64.decode(evenModulus.n!)!
        modulus[modulus.count - 1] &= 0xFE
        evenModulus.n = modulus.base64URLUnpadded
        await #expect(throws: JWSError.malformed("an RS256 key's modulus 'n' must be odd and at least 2048 bits, not 2048")) {
            try await evenModulus.keyCollection(for: .rs256)
        }
        var short = JOSEVectors.rs256.publicKey
        short.n = Data([0x00, 0xC1] + [UInt8](repeating: 0x55, count: 126) + [0x01]).base64URLUnpadded
        await #expect(throws: JWSError.malformed("an RS256 key's modulus 'n' must be odd and at least 2048 bits, not 1024")) {
            try await short.keyCollection(for: .rs256)
        }
        _ = try await JOSEVectors.rs256.publicKey.keyCollection(for: .rs256)
    }
}
