import ControlWire
import Foundation
import Hummingbird
import PushAgentCore
import PushAgentStore

/// `/v1/accounts`: list, enroll, remove, read a TOTP code, mute and unmute.
struct AccountRoutes: ControlRouteCollection {
    let store: AgentStore
    let enrollment: EnrollmentService
    let muting: AccountMuting
    let modules: ProviderModules
    let config: LiveConfig
    let writers: Writers

    func addRoutes(to v1: RouterGroup<PeerContext>) {
        v1.get("accounts") { _, _ in try JSONResponse.ok(AccountsResponse(accounts: try await store.accounts())) }
        v1.writersPost("accounts", EnrollRequest.self, writers: writers, status: .created) { body, peer, _ in
            try await enrollment.enroll(uri: body.uri, name: body.name, fcmApp: body.fcmApp, peer: peer)
        }
        v1.delete("accounts/:id") { _, context in
            let peer = try await writers.peer(context)
            return try JSONResponse.ok(try await enrollment.remove(try context.parameters.require("id"), peer: peer))
        }
        // A TOTP code signs its holder in, so reading one takes the same rights as approving (and is audited).
        v1.get("accounts/:id/code") { _, context in
            let peer = try await writers.peer(context)
            let code = try await code(for: try context.parameters.require("id"))
            try await store.audit(event: "code", peer: peer, subject: code.accountId, detail: nil)
            return try JSONResponse.ok(code)
        }
        v1.writersPost("accounts/:id/mute", MuteRequest.self, writers: writers) { body, peer, context in
            try await muting.mute(try context.parameters.require("id"),
                                  forSeconds: body.seconds ?? muting.defaultSeconds(config.current),
                                  reason: "muted by uid \(peer.uid)", peer: peer)
        }
        v1.post("accounts/:id/unmute") { _, context in
            let peer = try await writers.peer(context)
            return try JSONResponse.ok(try await muting.unmute(try context.parameters.require("id"), peer: peer))
        }
    }

    private func code(for idOrPrefix: String) async throws -> CodeResponse {
        let stored = try await store.account(matching: idOrPrefix)
        guard let totp = stored.totp else {
            throw ServiceError(.invalidArgument, "account \(stored.account.id) has no TOTP secret (its enrollment URI carried none)")
        }
        if let refusal = try await modules[stored.account.provider]?.codeRefusal(for: stored) {
            throw ServiceError(.forbidden, refusal)
        }
        let code = TOTP.code(totp, at: Date())
        return CodeResponse(accountId: stored.account.id, code: code.code, secondsLeft: code.secondsLeft)
    }
}
