import ControlWire
import Foundation
import Logging
import PushAgentCore
import PushAgentStore

/// Mutes and unmutes accounts: while muted, an account's pushes are denied unseen (PushFatigueDefence).
struct AccountMuting: Sendable {
    let store: AgentStore
    let events: EventBus
    let logger: Logger

    /// The longest mute: long enough to sit out an attack, short enough that a forgotten one ends.
    static let maximumSeconds: Double = 30 * 86_400

    /// A mute without a duration lasts as long as one after fraud, or 20 minutes when fraud mutes nothing.
    func defaultSeconds(_ config: AgentConfig) -> Double { config.fraudMuteSeconds > 0 ? config.fraudMuteSeconds : 1200 }

    func mute(_ idOrPrefix: String, forSeconds seconds: Double, reason: String, peer: Peer?) async throws -> Account {
        guard seconds > 0, seconds <= Self.maximumSeconds else {
            throw ServiceError(.invalidArgument, "a mute lasts from 1 second to 30 days, not \(seconds) seconds")
        }
        let until = Date().addingTimeInterval(seconds)
        let account = try await store.setMute(accountMatching: idOrPrefix, until: until, reason: reason)
        try await store.audit(event: "mute", peer: peer, subject: account.id,
                              detail: "until=\(until.formatted(.iso8601)) reason=\(reason)")
        logger.warning("account \(account.id) muted until \(until.formatted(.iso8601)): \(reason); its pushes are denied unseen", metadata: [
            "message_id": "\(LogMessageID.accountMuted)", "account_id": "\(account.id)",
            "provider": "\(account.provider.rawValue)", "muted_until": "\(until.formatted(.iso8601))"])
        await events.publish(.accountChanged(account))
        return account
    }

    func unmute(_ idOrPrefix: String, peer: Peer) async throws -> Account {
        let account = try await store.setMute(accountMatching: idOrPrefix, until: nil, reason: nil)
        try await store.audit(event: "unmute", peer: peer, subject: account.id, detail: nil)
        logger.notice("account \(account.id) unmuted by uid \(peer.uid)", metadata: [
            "account_id": "\(account.id)", "provider": "\(account.provider.rawValue)"])
        await events.publish(.accountChanged(account))
        return account
    }
}
