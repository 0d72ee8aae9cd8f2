import Hummingbird
import PushAgentStore

/// Who may change things through the control API: root, the daemon's user and the configured operators
/// (`OperatorPolicy`). A route that changes anything asks for its caller here first.
struct Writers: Sendable {
    let policy: OperatorPolicy
    let store: AgentStore

    /// The caller, if it may write; otherwise a 403 that says who may (and the refusal is audited).
    func peer(_ context: PeerContext) async throws -> Peer {
        let peer = try await context.peer()
        guard policy.mayWrite(uid: peer.uid) else {
            try? await store.audit(event: "write_refused", peer: peer, subject: nil, detail: nil)
            throw ServiceError(.forbidden, "uid \(peer.uid) may read but not approve, deny, enroll, remove, read codes, back up or restore: only root, the daemon's user and the configured operators may (add the user to `operators` in pushagentd.toml, e.g. operators = [\"alice\", \"@wheel\"])")
        }
        return peer
    }
}

extension RouterGroup<PeerContext> {
    /// `POST path` for writers only: a caller who may not write is refused before its body is read; the JSON body (at
    /// most `limit` bytes) goes to `handle` with the caller, and what `handle` returns is the reply, with `status`.
    @discardableResult
    func writersPost<Body: Decodable>(
        _ path: RouterPath, _ body: Body.Type, writers: Writers, limit: Int = RequestBodyError.limit,
        status: HTTPResponse.Status = .ok,
        _ handle: @escaping @Sendable (_ body: Body, _ peer: Peer, _ context: PeerContext) async throws -> some Encodable
    ) -> Self {
        post(path) { request, context in
            let peer = try await writers.peer(context)
            let body = try await request.decodeJSON(Body.self, limit: limit)
            return try JSONResponse.ok(try await handle(body, peer, context), status: status)
        }
    }
}
