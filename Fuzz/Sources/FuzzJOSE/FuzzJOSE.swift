import Foundation
import FuzzSupport
@testable import PushAgentCore

@_cdecl("FuzzJOSE_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testJOSE) }

/// JWS and JWK parsing. The first byte picks what the rest is: a compact token for every verifier (which all read
/// the header before the signature), a PlusAuth JWK as an account's stored key, a step-up JWK set with a token, or
/// the claims of a step-up receipt signed by the device key (what a step-up server reads past the signature).
func testJOSE(_ bytes: Data) {
    guard let (mode, rest) = FuzzInput.mode(of: bytes, count: 4) else { return }
    switch mode {
    case 0: token(FuzzInput.text(rest))
    case 1: plusAuthKey(rest)
    case 2: stepUpKeys(rest)
    default: signedReceipt(rest)
    }
}

private func token(_ token: String) {
    _ = try? CompactJWS.algorithm(of: token)
    _ = try? CompactJWS.unverifiedPayload(of: token, as: [String: JSONValue].self)
    runBlocking {
        _ = try? await HS256.verify(token, key: FuzzFixtures.forgeRockSecret, as: ForgeRockNotificationClaims.self)
        _ = try? await PlusAuthJWS.verify(token, key: FuzzFixtures.plusAuthJWK, algorithm: .es256, as: PlusAuthContextClaims.self)
        _ = try? await StepUpReceipt.verify(token, keys: JWKSet(keys: []), businessNumber: nil, audience: nil,
                                            now: FuzzClock.receivedAt)
    }
}

/// A token signed by the fuzz key, so a stored key that decodes gets a real verification to do.
private let plusAuthToken = SignedToken.es256(payload: Data(#"{"exp":1750000100,"context_token":"t","type":"prompt"}"#.utf8),
                                              key: FuzzFixtures.plusAuthKey)

private func plusAuthKey(_ json: Data) {
    guard let jwk = try? JSONDecoder().decode(PlusAuthJWK.self, from: json) else { return }
    _ = jwk.hasSamePublicKey(as: FuzzFixtures.plusAuthJWK)
    runBlocking {
        for algorithm in PlusAuthAlgorithm.allCases {
            _ = try? await jwk.keyCollection(for: algorithm)
            _ = try? await PlusAuthJWS.verify(plusAuthToken, key: jwk, algorithm: algorithm, as: PlusAuthContextClaims.self)
        }
    }
}

/// `{"keys": […]}` then, after a newline, the token to check against it (what a step-up server does).
private func stepUpKeys(_ bytes: Data) {
    let parts = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false)
    guard let keys = try? JSONDecoder().decode(JWKSet.self, from: Data(parts[0])) else { return }
    let token = parts.count > 1 ? FuzzInput.text(Data(parts[1])) : ""
    runBlocking {
        _ = try? await StepUpReceipt.verify(token, keys: keys, businessNumber: "1234", audience: "https://example.com",
                                            now: FuzzClock.receivedAt)
    }
}

private let stepUpJWK = FuzzFixtures.stepUpKey.publicJWK
private let stepUpHeader = #"{"alg":"ES256","typ":"\#(StepUpReceipt.type)","kid":"\#(stepUpJWK.kid)"}"#

private func signedReceipt(_ claims: Data) {
    let token = SignedToken.es256(payload: claims, key: FuzzFixtures.stepUpKey.privateKey, header: stepUpHeader)
    runBlocking {
        _ = try? await StepUpReceipt.verify(token, keys: JWKSet(keys: [stepUpJWK]), businessNumber: "1234",
                                            audience: "https://example.com", now: FuzzClock.receivedAt)
    }
}
