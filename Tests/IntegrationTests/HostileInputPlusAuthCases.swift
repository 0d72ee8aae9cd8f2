import ClusterHarness
import Foundation
import PushAgentCore
import PushSim

/// PlusAuth contexts (ES256 under the key the agent enrolled) as an attacker or a broken tenant would send them.
struct HostilePlusAuthCases {
    let sim: SimAdminClient

    /// A crafted context, not sent; `info.application` (the approval's title) is `name` unless the claims say otherwise.
    func crafted(_ name: String, claims: [String: JSONValue] = [:], raw: [String: String]? = nil,
                 header: [String: JSONValue]? = nil,
                 signing: SimAdminAPI.ClaimsPushRequest.Signing = .account) async throws -> [String: String] {
        let info: [String: JSONValue] = ["info": .object(["application": .string(name), "user_identifier": .string("alice")])]
        return try await sim.plusAuthPushClaims(.init(claims: info.merging(claims) { $1 }, rawClaims: raw, header: header,
                                              signing: signing, dryRun: true)).data
    }

    func all() async throws -> [HostileCase] {
        let now = Date().timeIntervalSince1970
        let original = try await crafted("plusauth: original of the replays")
        var tampered = try await crafted("plusauth: tampered")
        tampered["context"] = try HostileJSON.tampered(tampered["context"]!) {
            $0["info"] = .object(["application": .string("plusauth: tampered, approve me")])
        }
        return [
            .init("alg none", try await crafted("plusauth: alg none", signing: .none), HostileCase.rejected(.algorithmNotAllowed)),
            .init("HS256 keyed with the public key", try await crafted("plusauth: hmac", signing: .hmacPublicKey),
                  HostileCase.rejected(.algorithmNotAllowed)),
            .init("RS256 header over an ES256 signature", try await crafted("plusauth: RS256 header", header: ["alg": .string("RS256")]),
                  HostileCase.rejected(.algorithmNotAllowed)),
            .init("wrong key", try await crafted("plusauth: wrong key", signing: .otherKey), HostileCase.rejected(.badSignature)),
            .init("tampered payload", tampered, HostileCase.rejected(.badSignature)),
            .init("expired", try await crafted("plusauth: expired", claims: ["exp": .number(now - 600), "iat": .number(now - 720)]),
                  HostileCase.rejected(.expired)),
            .init("exp 1e300", try await crafted("plusauth: exp 1e300", claims: ["exp": .number(1e300)]),
                  .acceptedOrMalformed(marker: "plusauth: exp 1e300")),
            .init("iat 1e300", try await crafted("plusauth: iat 1e300", claims: ["iat": .number(1e300)]), HostileCase.rejected(.malformed)),
            .init("exp and iat 1e300", try await crafted("plusauth: both 1e300", claims: ["exp": .number(1e300), "iat": .number(1e300)]),
                  HostileCase.rejected(.malformed)),
            .init("iat -1e300", try await crafted("plusauth: iat -1e300", claims: ["iat": .number(-1e300)]),
                  .acceptedOrMalformed(marker: "plusauth: iat -1e300")),
            .init("exp a string", try await crafted("plusauth: exp string", claims: ["exp": .string("tomorrow")]),
                  HostileCase.rejected(.malformed)),
            .init("original", original, .approval(marker: "plusauth: original of the replays")),
            .init("the same context again", original, .absorbed(marker: "plusauth: original of the replays")),
            .init("100 code values", try await crafted("plusauth: 100 values", claims: [
                "type": .string("code"), "values": .array((1...100).map { .string(String($0)) })]), HostileCase.rejected(.malformed)),
            .init("near the relay's limit", try await HostileJSON.nearTheLimit { filler in
                try await crafted("plusauth: near the limit " + filler)
            }, .acceptedOrMalformed(marker: "plusauth: near the limit")),
            .init("past the relay's limit", try await crafted("plusauth: too big " + String(repeating: "x", count: 4000)), .refusedByRelay),
            .init("info nested 700 deep", try await crafted("plusauth: deep info", raw: [
                "info": #"{"application":"plusauth: deep info","deep":"# + HostileJSON.nestedArrays(700) + "}"]),
                  .acceptedOrMalformed(marker: "plusauth: deep info")),
            // Its header names HS256: refused for the algorithm before the payload is read, or for the payload.
            .init("payload not UTF-8", ["context": HostileJSON.notUTF8JWT], HostileCase.rejected(.malformed, .algorithmNotAllowed)),
            .init("JWT not base64", ["context": HostileJSON.notBase64JWT], HostileCase.rejected(.malformed)),
        ]
    }
}
