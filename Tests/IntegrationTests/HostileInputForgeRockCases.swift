import ClusterHarness
import Foundation
import PushAgentCore
import PushSim

/// ForgeRock pushes (HS256 under the account's shared secret) as an attacker or a broken AM would send them.
struct HostileForgeRockCases {
    let sim: SimAdminClient

    /// A crafted push, not sent; its `m` (the approval's message) is `name` unless the claims say otherwise.
    func crafted(_ name: String, claims: [String: JSONValue] = [:], raw: [String: String]? = nil,
                 header: [String: JSONValue]? = nil, signing: SimAdminAPI.ClaimsPushRequest.Signing = .account,
                 messageId: String? = nil) async throws -> [String: String] {
        try await sim.pushClaims(.init(claims: ["m": .string(name)].merging(claims) { $1 }, rawClaims: raw,
                                       header: header, signing: signing, messageId: messageId, dryRun: true)).data
    }

    func all() async throws -> [HostileCase] {
        let nowMillis = Int64(Date().timeIntervalSince1970 * 1000)
        let original = try await crafted("forgerock: original of the replays")
        var underNewId = original
        underNewId["messageId"] = "AUTHENTICATE:\(UUID().uuidString.lowercased())\(nowMillis)"
        var tampered = try await crafted("forgerock: tampered")
        tampered["message"] = try HostileJSON.tampered(tampered["message"]!) { $0["m"] = .string("forgerock: tampered, approve me") }
        return [
            .init("alg none", try await crafted("forgerock: alg none", signing: .none), HostileCase.rejected(.algorithmNotAllowed)),
            .init("RS256 header over an HMAC signature",
                  try await crafted("forgerock: RS256 header", header: ["alg": .string("RS256")]), HostileCase.rejected(.algorithmNotAllowed)),
            .init("HS512 header", try await crafted("forgerock: HS512", header: ["alg": .string("HS512")]), HostileCase.rejected(.algorithmNotAllowed)),
            .init("no alg", try await crafted("forgerock: no alg", header: ["alg": .null]), HostileCase.rejected(.algorithmNotAllowed, .malformed)),
            .init("wrong key", try await crafted("forgerock: wrong key", signing: .otherKey), HostileCase.rejected(.badSignature)),
            .init("tampered payload", tampered, HostileCase.rejected(.badSignature)),
            .init("expired", try await crafted("forgerock: expired", claims: ["i": .string("\(nowMillis - 600_000)"), "t": .string("60")]),
                  HostileCase.rejected(.expired)),
            .init("t=300000000000", try await crafted("forgerock: huge ttl", claims: ["t": .string("300000000000")]),
                  .acceptedOrMalformed(marker: "forgerock: huge ttl")),
            .init("i=Int64.max", try await crafted("forgerock: i max", claims: ["i": .string("\(Int64.max)")]),
                  .acceptedOrMalformed(marker: "forgerock: i max")),
            .init("i ten years ahead",
                  try await crafted("forgerock: issued in 10 years", claims: ["i": .string("\(nowMillis + 315_360_000_000)")]),
                  .acceptedOrMalformed(marker: "forgerock: issued in 10 years")),
            .init("original", original, .approval(marker: "forgerock: original of the replays")),
            .init("the same push again", original, .absorbed(marker: "forgerock: original of the replays")),
            .init("the same JWT under a new messageId", underNewId, .absorbed(marker: "forgerock: original of the replays")),
            .init("unknown mechanism", try await crafted("forgerock: unknown mechanism", claims: ["u": .string("no-such-mechanism")]),
                  HostileCase.rejected(.unknownAccount)),
            .init("500 challenge numbers", try await crafted("forgerock: 500 numbers", claims: [
                "k": .string("challenge"), "n": .string((1...500).map(String.init).joined(separator: ","))]), HostileCase.rejected(.malformed)),
            .init("near the relay's limit", try await HostileJSON.nearTheLimit { filler in
                try await crafted("forgerock: near the limit " + filler)
            }, .acceptedOrMalformed(marker: "forgerock: near the limit")),
            .init("past the relay's limit", try await crafted("forgerock: too big " + String(repeating: "x", count: 4000)), .refusedByRelay),
            .init("context info nested 1000 deep",
                  try await crafted("forgerock: deep x", claims: ["x": .string(HostileJSON.nestedArrays(1000))]),
                  .acceptedOrMalformed(marker: "forgerock: deep x")),
            .init("payload nested 1200 deep", try await crafted("forgerock: deep payload", raw: ["z": HostileJSON.nestedArrays(1200)]),
                  .acceptedOrMalformed(marker: "forgerock: deep payload")),
            .init("payload not JSON", try await crafted("forgerock: broken payload", raw: ["z": "[1,"]), HostileCase.rejected(.malformed)),
            .init("payload not UTF-8", ["messageId": "AUTHENTICATE:not-utf8", "message": HostileJSON.notUTF8JWT],
                  HostileCase.rejected(.malformed)),
            .init("JWT not base64", ["messageId": "AUTHENTICATE:not-base64", "message": HostileJSON.notBase64JWT],
                  HostileCase.rejected(.malformed)),
            .init("no messageId", ["messageId": "", "message": original["message"]!], HostileCase.rejected(.malformed)),
        ]
    }
}

/// privacyIDEA challenges without a privacyIDEA server: no token is enrolled, so what reaches past the serial
/// lookup is covered by the unit tests and the (slow) real-server suite.
enum HostilePrivacyIDEACases {
    static let challenge = [
        "nonce": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "serial": "PIPU0000DEAD", "question": "Sign in?", "title": "privacyIDEA",
        "url": "https://pi.example/ttype/push", "sslverify": "1",
        "signature": String(repeating: "A", count: 816) + "====",
    ]

    static func with(_ changes: [String: String]) -> [String: String] { challenge.merging(changes) { $1 } }

    static let all: [HostileCase] = [
        .init("privacyIDEA unknown serial", challenge, HostileCase.rejected(.unknownAccount)),
        .init("privacyIDEA empty serial", with(["serial": ""]), HostileCase.rejected(.malformed)),
        .init("privacyIDEA signature not base32", with(["signature": "!!not base32!!"]), HostileCase.rejected(.unknownAccount, .malformed)),
        .init("privacyIDEA serial of 3000 characters", with(["serial": String(repeating: "S", count: 3000)]),
              HostileCase.rejected(.unknownAccount, .malformed)),
        .init("privacyIDEA serial with controls and a BOM", with(["serial": "PIPU\u{0}\u{1B}[2J\u{FEFF}\u{202E}"]),
              HostileCase.rejected(.unknownAccount, .malformed)),
        .init("privacyIDEA question nested 1500 deep", with(["question": HostileJSON.nestedArrays(1500)]),
              HostileCase.rejected(.unknownAccount)),
    ]
}

/// Pushes no dialect claims, or that the relay must refuse before any daemon sees them.
enum HostileUnroutableCases {
    static func all(token: String) -> [HostileCase] {
        [
            .init("no dialect's keys", ["hello": "world"], HostileCase.rejected(.unknownDialect)),
            .init("empty data", [:], HostileCase.rejected(.unknownDialect)),
            .init("a send body that is not UTF-8", body: .raw(HostileJSON.sendBodyWithInvalidUTF8(token: token)), .refusedByRelay),
            .init("a send body nested 3000 deep", body: .raw(Data(HostileJSON.nestedArrays(3000).utf8)), .refusedByRelay),
        ]
    }
}
