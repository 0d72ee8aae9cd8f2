import ClusterHarness
import Foundation
import PushSim

/// Hyphen `2fa-request` pushes (unsigned: Hyphen's server and the Flow chain check what the agent then does) made
/// from a genuine one, changed as an attacker or a broken server would.
struct HostileHyphenCases {
    let sim: SimAdminClient
    /// Written where a lone surrogate goes: JSON text no encoder here would produce.
    static let loneSurrogate = "LONE-SURROGATE"

    /// A fresh genuine request (its own id, so no case is a replay of another) with the requesting device named
    /// `name` (the approval's message shows it), changed by `change`.
    func crafted(_ name: String, type: String = "2fa-request", _ change: (inout [String: Any]) -> Void = { _ in })
        async throws -> [String: String] {
        let template = try await sim.hyphenPushData().data
        var root = try JSONSerialization.jsonObject(with: Data(template["hyphen:data"]!.utf8)) as! [String: Any]
        var status = root["twoFactorAuth"] as! [String: Any]
        var request = status["request"] as! [String: Any]
        var source = request["srcDevice"] as! [String: Any]
        source["name"] = name
        request["srcDevice"] = source
        status["request"] = request
        change(&status)
        root["twoFactorAuth"] = status
        let json = String(decoding: try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]), as: UTF8.self)
        return ["hyphen:type": type, "hyphen:data": json.replacingOccurrences(of: Self.loneSurrogate, with: #"\udc00"#)]
    }

    func all() async throws -> [HostileCase] {
        let original = try await crafted("hyphen: original of the replays")
        return [
            .init("unknown device key", try await crafted("hyphen: unknown device") { status in
                var request = status["request"] as! [String: Any]
                var destination = request["destDevice"] as! [String: Any]
                destination["publicKey"] = String(repeating: "ab", count: 64)
                request["destDevice"] = destination
                status["request"] = request
            }, HostileCase.rejected(.unknownAccount)),
            .init("expired", try await crafted("hyphen: expired") { $0["expiresAt"] = "2020-01-01T00:00:00.000Z" },
                  HostileCase.rejected(.expired)),
            .init("expiresAt 9999-12-31T23:59:59-23:59", try await crafted("hyphen: year 10000") {
                $0["expiresAt"] = "9999-12-31T23:59:59-23:59"
            }, .acceptedOrMalformed(marker: "hyphen: year 10000")),
            .init("expiresAt 9999-12-31T23:59:59Z", try await crafted("hyphen: year 9999") { $0["expiresAt"] = "9999-12-31T23:59:59Z" },
                  .acceptedOrMalformed(marker: "hyphen: year 9999")),
            .init("already approved", try await crafted("hyphen: approved") { $0["status"] = "approved" }, HostileCase.rejected(.malformed)),
            .init("unknown type", try await crafted("hyphen: unknown type", type: "2fa-anything"), HostileCase.rejected(.malformed)),
            .init("original", original, .approval(marker: "hyphen: original of the replays")),
            .init("the same request again", original, .absorbed(marker: "hyphen: original of the replays")),
            .init("data nested 1800 deep", ["hyphen:type": "2fa-request", "hyphen:data": HostileJSON.nestedArrays(1800)],
                  HostileCase.rejected(.malformed)),
            .init("a member nested 800 deep", try await crafted("hyphen: deep member") { $0["extra"] = Self.loneSurrogate }
                .mapValues { $0.replacingOccurrences(of: #""\udc00""#, with: HostileJSON.nestedArrays(800)) },
                  .acceptedOrMalformed(marker: "hyphen: deep member")),
            .init("a lone surrogate", try await crafted("hyphen: surrogate " + Self.loneSurrogate),
                  .acceptedOrMalformed(marker: "hyphen: surrogate")),
            .init("data not JSON", ["hyphen:type": "2fa-request", "hyphen:data": "{not json"], HostileCase.rejected(.malformed)),
            .init("near the relay's limit", try await HostileJSON.nearTheLimit { filler in
                try await crafted("hyphen: near the limit " + filler)
            }, .acceptedOrMalformed(marker: "hyphen: near the limit")),
            .init("past the relay's limit", try await crafted("hyphen: too big " + String(repeating: "x", count: 4000)), .refusedByRelay),
        ]
    }
}
