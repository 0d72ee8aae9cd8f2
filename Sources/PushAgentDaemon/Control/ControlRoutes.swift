import ControlAPI
import Foundation
import Hummingbird
import Logging
import PushAgentCore
import PushAgentStore

/// The control API of DESIGN.md §4.
struct ControlRoutes: Sendable {
    let store: AgentStore
    let approvals: ApprovalService
    let muting: AccountMuting
    let enrollment: EnrollmentService
    let events: EventBus
    let relayState: RelayStateBox
    let policy: OperatorPolicy
    let startedAt: Date
    let logger: Logger

    func register(on router: Router<PeerContext>) {
        router.add(middleware: ControlMiddleware(logger: logger))
        router.get("/v1/status") { _, _ in try JSONResponse.ok(try await status()) }
        router.get("/v1/accounts") { _, _ in try JSONResponse.ok(AccountsResponse(accounts: try await store.accounts())) }
        router.post("/v1/accounts") { request, context in
            let peer = try await writer(context)
            let body = try await request.decodeJSON(EnrollRequest.self)
            let account = try await enrollment.enroll(uri: body.uri, name: body.name, peer: peer)
            return try JSONResponse.ok(account, status: .created)
        }
        router.delete("/v1/accounts/:id") { _, context in
            let peer = try await writer(context)
            return try JSONResponse.ok(try await enrollment.remove(try context.parameters.require("id"), peer: peer))
        }
        // A TOTP code signs its holder in, so reading one takes the same rights as approving (and is audited).
        router.get("/v1/accounts/:id/code") { _, context in
            let peer = try await writer(context)
            let code = try await code(for: try context.parameters.require("id"))
            try await store.audit(event: "code", peer: peer, subject: code.accountId, detail: nil)
            return try JSONResponse.ok(code)
        }
        router.post("/v1/accounts/:id/mute") { request, context in
            let peer = try await writer(context)
            let body = try await request.decodeJSON(MuteRequest.self)
            return try JSONResponse.ok(try await muting.mute(
                try context.parameters.require("id"), forSeconds: body.seconds ?? muting.defaultSeconds(policy.config.current),
                reason: "muted by uid \(peer.uid)", peer: peer))
        }
        router.post("/v1/accounts/:id/unmute") { _, context in
            let peer = try await writer(context)
            return try JSONResponse.ok(try await muting.unmute(try context.parameters.require("id"), peer: peer))
        }
        router.post("/v1/approvals/deny") { request, context in
            let peer = try await writer(context)
            let body = try await request.decodeJSON(DenyAllRequest.self)
            return try JSONResponse.ok(ApprovalsResponse(
                approvals: try await approvals.denyAll(account: body.account, reason: body.reason, peer: peer)))
        }
        router.get("/v1/approvals") { request, _ in
            let state = try request.uri.queryParameters.get("state").map { raw in
                guard let state = ApprovalState(rawValue: String(raw)) else {
                    throw ControlError(.invalidArgument, "unknown state '\(raw)' (one of \(ApprovalState.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                return state
            }
            return try JSONResponse.ok(ApprovalsResponse(approvals: try await store.approvals(state: state)))
        }
        router.get("/v1/approvals/:id") { _, context in
            try JSONResponse.ok(try await store.approval(matching: try context.parameters.require("id")).approval)
        }
        router.post("/v1/approvals/:id/approve") { request, context in
            let peer = try await writer(context)
            let body = try await request.decodeJSON(ApproveRequest.self)
            return try JSONResponse.ok(try await approvals.answer(
                try context.parameters.require("id"), decision: .approve(number: body.number),
                userVerified: body.userVerified ?? false, password: body.password, peer: peer))
        }
        router.post("/v1/approvals/:id/deny") { request, context in
            let peer = try await writer(context)
            let body = try await request.decodeJSON(DenyRequest.self)
            return try JSONResponse.ok(try await approvals.answer(
                try context.parameters.require("id"), decision: .deny(reason: body.reason), userVerified: false, peer: peer))
        }
        router.get("/v1/history") { request, _ in
            let limit = request.uri.queryParameters.get("limit").flatMap { Int($0) } ?? 50
            guard (1...1000).contains(limit) else { throw ControlError(.invalidArgument, "limit must be from 1 to 1000") }
            return try JSONResponse.ok(HistoryResponse(entries: try await history(limit: limit)))
        }
        router.get("/v1/events") { _, _ in eventStream() }
    }

    /// The caller, if it may write; otherwise a 403 that says who may.
    func writer(_ context: PeerContext) async throws -> Peer {
        let peer = try await context.peer()
        guard policy.mayWrite(uid: peer.uid) else {
            try? await store.audit(event: "write_refused", peer: peer, subject: nil, detail: nil)
            throw ControlError(.forbidden, "uid \(peer.uid) may read but not approve, deny, enroll, remove, read codes, back up or restore: only root, the daemon's user and the configured operators may (add the user to `operators` in pushagentd.toml, e.g. operators = [\"alice\", \"@wheel\"])")
        }
        return peer
    }

    private func status() async throws -> StatusResponse {
        let device = try await store.deviceIdentity()
        let counts = try await store.counts()
        return StatusResponse(
            version: PushAgentVersion.string, uptimeSeconds: Int(Date().timeIntervalSince(startedAt)),
            deviceId: device?.deviceId, pushToken: device?.token, relay: relayState.current,
            counts: .init(accounts: counts.accounts, pending: counts.pending, rejectedPushes: counts.rejected),
            mutedAccounts: try await store.accounts().filter { $0.isMuted(at: Date()) },
            secretsSealedBy: store.secretsSealedBy.rawValue)
    }

    private func code(for idOrPrefix: String) async throws -> CodeResponse {
        let stored = try await store.account(matching: idOrPrefix)
        guard let totp = stored.totp else {
            throw ControlError(.invalidArgument, "account \(stored.account.id) has no TOTP secret (its enrollment URI carried none)")
        }
        if let refusal = try await enrollment.modules[stored.account.provider]?.codeRefusal(for: stored) {
            throw ControlError(.forbidden, refusal)
        }
        let code = TOTP.code(totp, at: Date())
        return CodeResponse(accountId: stored.account.id, code: code.code, secondsLeft: code.secondsLeft)
    }

    private func history(limit: Int) async throws -> [HistoryEntry] {
        let resolved = try await store.resolvedApprovals(limit: limit).map {
            HistoryEntry(kind: .approval, at: $0.resolvedAt ?? $0.requestedAt, approval: $0)
        }
        let rejected = try await store.auditEntries(event: "push_rejected", limit: limit).compactMap { entry -> HistoryEntry? in
            guard let data = entry.detail?.data(using: .utf8),
                  let detail = try? JSONDecoder().decode(RejectionDetail.self, from: data) else { return nil }
            return HistoryEntry(kind: .rejectedPush, at: entry.at, rejectedPush: RejectedPush(
                reason: detail.reason, message: detail.message, provider: detail.provider, relayMessageId: entry.subject))
        }
        return Array((resolved + rejected).sorted { $0.at > $1.at }.prefix(limit))
    }

    /// NDJSON, one event per line, until the client goes away or the daemon stops. The first line is the relay's
    /// current state, so a subscriber knows it is live (nothing published after that line is missed).
    private func eventStream() -> Response {
        let events = self.events
        let relayState = self.relayState
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: ResponseBody { writer in
            let encoder = ControlJSON.encoder()
            let subscription = await events.subscribe()
            var line = try encoder.encode(ControlEvent(type: .relayState, relay: relayState.current))
            line.append(0x0A)
            try await writer.write(ByteBuffer(bytes: line))
            for await event in subscription {
                var line = try encoder.encode(event)
                line.append(0x0A)
                try await writer.write(ByteBuffer(bytes: line))
            }
            try await writer.finish(nil)
        })
    }
}

public enum PushAgentVersion {
    public static let string = "0.1.0"
}
