import PushAgentCore
import PushAgentStore

/// The two steps every provider's `effect(for:receivedAt:)` shares, with the rejections they make.
extension AgentStore {
    /// The account of `provider` that a push names by its lookup key. A lookup that fails rejects the push as
    /// malformed; no such account here rejects it as `unknownAccount`, with `unknown` saying what the push named.
    func account(of provider: Provider, namedByPush lookupKey: String, unknown: @autoclosure () -> String)
        async throws(PushRejection) -> StoredAccount {
        let stored: StoredAccount?
        do { stored = try await account(provider: provider, lookupKey: lookupKey) }
        catch { throw PushRejection(.malformed, "account lookup failed: \(error)") }
        guard let stored else { throw PushRejection(.unknownAccount, unknown()) }
        return stored
    }
}

extension PushEffect {
    /// The approval a verified push asks for; a draft that cannot be made of it (its answer context does not encode)
    /// rejects the push as malformed.
    static func approval(drafting draft: () throws -> ApprovalDraft) throws(PushRejection) -> PushEffect {
        do { return .approval(try draft()) }
        catch let rejection as PushRejection { throw rejection }
        catch { throw PushRejection(.malformed, "\(error)") }
    }
}
