import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// One hostile push and what the daemon must make of it.
struct HostileCase: Sendable {
    enum Outcome: Sendable {
        /// Refused, and kept in history with one of these reasons.
        case rejected(Set<PushRejection.Reason>)
        /// A valid push: exactly one approval mentions the marker.
        case approval(marker: String)
        /// A second delivery of an accepted push: no second approval, and `duplicate` in history.
        case absorbed(marker: String)
        /// Valid but extreme (far-future expiry, near the size limit, deep JSON where it is only shown): either
        /// accepted within the agent's bounds or refused as malformed; never a crash, never an unreadable row.
        case acceptedOrMalformed(marker: String)
        /// The relay refuses it with HTTP 400: it never reaches the daemon.
        case refusedByRelay
    }

    enum Body: Sendable {
        case data([String: String])
        /// A send request's raw bytes, for what no JSON encoder writes.
        case raw(Data)
    }

    var name: String
    var body: Body
    var outcome: Outcome

    init(_ name: String, _ data: [String: String], _ outcome: Outcome) {
        self.init(name, body: .data(data), outcome)
    }

    init(_ name: String, body: Body, _ outcome: Outcome) {
        self.name = name
        self.body = body
        self.outcome = outcome
    }

    static func rejected(_ reasons: PushRejection.Reason...) -> Outcome { .rejected(Set(reasons)) }
}

/// Sends hostile pushes through the real relay to the real daemon, then a good one, and checks that each hostile
/// push got its outcome and that the daemon, its API and pushctl still work.
struct HostileRun {
    let cluster: Cluster

    /// `goodPush` sends a valid push and returns the text its approval shows.
    func check(_ cases: [HostileCase], goodPush: () async throws -> String) async throws {
        let relay = RelaySender(baseURL: cluster.relayURL, project: Cluster.project, key: Cluster.senderKey)
        let token = try #require(try await cluster.client.status().pushToken)
        var delivered: [(HostileCase, relayMessageId: String)] = []
        for hostile in cases {
            switch (hostile.outcome, hostile.body) {
            case (.refusedByRelay, let body):
                let response = switch body {
                case .data(let data): try await relay.post(token: token, data: data)
                case .raw(let bytes): try await relay.post(body: bytes)
                }
                #expect(response.status == 400, "\(hostile.name): the relay refuses it: HTTP \(response.status) \(response.text.prefix(300))")
            case (_, .data(let data)):
                delivered.append((hostile, try await relay.deliver(token: token, data: data)))
            case (_, .raw):
                Issue.record("\(hostile.name): a raw body can only be refused by the relay")
            }
        }
        let goodMarker = try await goodPush()
        // The relay delivers in order and the daemon takes one message at a time: once the good push is in, every
        // hostile one before it has been handled.
        var approvals: [Approval] = []
        try await eventually("the good push sent after \(cases.count) hostile ones arrives", timeout: .seconds(60)) {
            guard cluster.daemon?.isRunning == true else { throw HarnessError("pushagentd exited") }
            approvals = try await cluster.client.approvals()
            return approvals.contains { $0.mentions(goodMarker) }
        }
        let history = try await cluster.client.history(limit: 1000)
        let rejections = Dictionary(history.compactMap(\.rejectedPush).compactMap { push in
            push.relayMessageId.map { ($0, push) }
        }) { first, _ in first }
        for (hostile, id) in delivered {
            check(hostile, rejection: rejections[id], approvals: approvals)
        }
        try await checkTheDaemonStillServes(approvals: approvals, good: goodMarker, rejectedIds: delivered.map(\.relayMessageId)
            .filter { rejections[$0] != nil })
        #expect(try await cluster.client.status().relay.state == .connected, "the relay loop is still running")
    }

    private func check(_ hostile: HostileCase, rejection: RejectedPush?, approvals: [Approval]) {
        let got = rejection.map { "rejected \($0.reason.rawValue): \($0.message.prefix(200))" } ?? "no rejection"
        func mentioning(_ marker: String) -> Int { approvals.count { $0.mentions(marker) } }
        switch hostile.outcome {
        case .rejected(let reasons):
            #expect(rejection.map { reasons.contains($0.reason) } == true,
                    "\(hostile.name): expected a rejection (\(reasons.map(\.rawValue).sorted())), got \(got)")
        case .approval(let marker):
            #expect(rejection == nil && mentioning(marker) == 1, "\(hostile.name): expected one approval, got \(got) and \(mentioning(marker)) approval(s)")
        case .absorbed(let marker):
            #expect(rejection?.reason == .duplicate && mentioning(marker) == 1,
                    "\(hostile.name): expected the replay absorbed, got \(got) and \(mentioning(marker)) approval(s)")
        case .acceptedOrMalformed(let marker):
            if let rejection {
                #expect(rejection.reason == .malformed, "\(hostile.name): expected malformed if refused, got \(got)")
            } else {
                #expect(mentioning(marker) == 1, "\(hostile.name): not rejected, so one approval expected, got \(mentioning(marker))")
            }
        case .refusedByRelay:
            break
        }
    }

    /// Listing, showing and history still work, from the API and from pushctl, and no approval outlives the
    /// agent's bound however far in the future its push put the expiry.
    private func checkTheDaemonStillServes(approvals: [Approval], good marker: String, rejectedIds: [String]) async throws {
        let latest = Date().addingTimeInterval(ApprovalDraft.maximumLifetime + 300)
        for approval in approvals {
            #expect(approval.expiresAt <= latest, "\(approval.id) '\(approval.message.prefix(60))' expires \(approval.expiresAt), past now + 1 day")
        }
        let good = try #require(approvals.first { $0.mentions(marker) })
        let list = try await cluster.pushctl(["list", "--all"])
        #expect(list.status == 0 && list.stdout.contains(good.id), "pushctl list: \(list.stderr)")
        let show = try await cluster.pushctl(["show", good.id])
        #expect(show.status == 0 && show.stdout.contains(good.id), "pushctl show: \(show.stderr)")
        for approval in approvals {
            #expect(try await cluster.pushctl(["--json", "show", approval.id]).status == 0, "pushctl show \(approval.id)")
        }
        let history = try await cluster.pushctl(["--json", "history", "--limit", "1000"])
        #expect(history.status == 0, "pushctl history: \(history.stderr)")
        let listed = try ControlJSON.decoder().decode(HistoryResponse.self, from: Data(history.stdout.utf8))
            .entries.compactMap { $0.rejectedPush?.relayMessageId }
        #expect(Set(rejectedIds).isSubset(of: Set(listed)), "pushctl history lists every rejected push")
        let table = try await cluster.pushctl(["history", "--limit", "1000"])
        #expect(table.status == 0 && table.stdout.contains("push rejected"), "pushctl history (table): \(table.stderr)")
    }
}

extension Approval {
    func mentions(_ marker: String) -> Bool { title.contains(marker) || message.contains(marker) }
}

/// Hostile JSON and JWT pieces the dialects' cases share.
enum HostileJSON {
    /// `[[[…]]]`, `depth` arrays deep: far past any decoder's nesting limit, small enough for the relay.
    static func nestedArrays(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    /// The size the relay measures (`{"data": …}`, compact, sorted keys).
    static func relayPayloadSize(_ data: [String: String]) -> Int {
        (try? JSONSerialization.data(withJSONObject: ["data": data], options: [.sortedKeys]).count) ?? .max
    }

    /// The JWT with its payload changed but header and signature kept: what an attacker on the path could send.
    static func tampered(_ jwt: String, _ change: (inout [String: JSONValue]) -> Void) throws -> String {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        let payload = try #require(LenientBase64.decode(parts[1]))
        var claims = try JSONDecoder().decode([String: JSONValue].self, from: payload)
        change(&claims)
        return "\(parts[0]).\(try JSONEncoder().encode(claims).base64URLUnpadded).\(parts[2])"
    }

    /// A JWT whose payload segment is valid base64url of bytes that are not UTF-8.
    static let notUTF8JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + Data([0xFF, 0xFE, 0xC0, 0x80, 0xED, 0xA0, 0x80]).base64URLUnpadded
        + ".c2lnbmF0dXJl"
    static let notBase64JWT = "%%%.***.!!!"

    /// A send request whose data value holds bytes that are not UTF-8.
    static func sendBodyWithInvalidUTF8(token: String) -> Data {
        Data(#"{"message":{"token":""#.utf8) + Data(token.utf8) + Data(#"","data":{"context":""#.utf8)
            + Data([0xFF, 0xFE, 0xC3]) + Data(#""}}}"#.utf8)
    }

    /// The largest filler (of `unit` repeated) for which `make` still fits the relay's 4096-byte limit.
    static func nearTheLimit(_ make: (String) async throws -> [String: String]) async throws -> [String: String] {
        var length = 3000
        while length > 0 {
            let data = try await make(String(repeating: "x", count: length))
            if relayPayloadSize(data) <= 4096 { return data }
            length -= 60
        }
        throw HarnessError("nothing fits the relay's limit")
    }
}
