import Foundation
import GRDB
import PushAgentCore

struct DeviceRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "device"
    var singleton = 1
    var relayUrl: String
    var deviceId: String
    var token: String
    var secret: String
    var registeredAt: Date
    var cursor: Int64

    enum CodingKeys: String, CodingKey {
        case singleton, relayUrl = "relay_url", deviceId = "device_id", token, secret
        case registeredAt = "registered_at", cursor
    }
}

struct AccountRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "account"
    var id: String
    var provider: String
    var issuer: String
    var name: String
    var createdAt: Date
    var lookupKey: String
    var credentials: Data
    var totp: Data?
    var needsTokenUpdate: Bool
    var tokenUpdateProblem: String?
    var mutedUntil: Date?
    var muteReason: String?
    var fcmApp: String?

    enum CodingKeys: String, CodingKey {
        case id, provider, issuer, name, createdAt = "created_at", lookupKey = "lookup_key", credentials, totp
        case needsTokenUpdate = "needs_token_update", tokenUpdateProblem = "token_update_problem"
        case mutedUntil = "muted_until", muteReason = "mute_reason", fcmApp = "fcm_app"
    }

    func account() throws -> Account {
        guard let provider = Provider.known(provider) else { throw StoreError.corrupt("account \(id): unknown provider \(provider)") }
        return Account(id: id, provider: provider, issuer: issuer, name: name, createdAt: createdAt,
                       hasTOTP: totp != nil, needsTokenUpdate: needsTokenUpdate,
                       tokenUpdateProblem: tokenUpdateProblem, mutedUntil: mutedUntil, muteReason: muteReason,
                       fcmApp: fcmApp)
    }
}

struct ApprovalRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "approval"
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { StoredDate.encoding }
    var id: String
    var provider: String
    var accountId: String
    var kind: String
    var numbers: String?
    var title: String
    var message: String
    var context: String
    var state: String
    var requestedAt: Date
    var expiresAt: Date
    var resolvedAt: Date?
    var resolution: String?
    var error: String?
    var dedupeKey: String
    var answerContext: Data
    /// When the agent took the push in (its own clock, unlike `requestedAt`): what push budgets count.
    var receivedAt: Date?
    var similarityKey: String?
    /// An `AutomaticDenial`: the agent denied it unseen.
    var automatic: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, provider, accountId = "account_id", kind, numbers, title, message, context, state
        case requestedAt = "requested_at", expiresAt = "expires_at", resolvedAt = "resolved_at"
        case resolution, error, dedupeKey = "dedupe_key", answerContext = "answer_context"
        case receivedAt = "received_at", similarityKey = "similarity_key", automatic
    }

    /// Written out column by column: through `Encodable`, GRDB boxed a keyed container for every column, 2 % of the
    /// agent's CPU a push for this record and the processed message's (RecordEncodingTests checks both ways give the
    /// same row).
    func encode(to container: inout PersistenceContainer) {
        container[CodingKeys.id.rawValue] = id
        container[CodingKeys.provider.rawValue] = provider
        container[CodingKeys.accountId.rawValue] = accountId
        container[CodingKeys.kind.rawValue] = kind
        container[CodingKeys.numbers.rawValue] = numbers
        container[CodingKeys.title.rawValue] = title
        container[CodingKeys.message.rawValue] = message
        container[CodingKeys.context.rawValue] = context
        container[CodingKeys.state.rawValue] = state
        container[CodingKeys.requestedAt.rawValue] = StoredDate.databaseValue(requestedAt)
        container[CodingKeys.expiresAt.rawValue] = StoredDate.databaseValue(expiresAt)
        container[CodingKeys.resolvedAt.rawValue] = resolvedAt.map(StoredDate.databaseValue)
        container[CodingKeys.resolution.rawValue] = resolution
        container[CodingKeys.error.rawValue] = error
        container[CodingKeys.dedupeKey.rawValue] = dedupeKey
        container[CodingKeys.answerContext.rawValue] = answerContext
        container[CodingKeys.receivedAt.rawValue] = receivedAt.map(StoredDate.databaseValue)
        container[CodingKeys.similarityKey.rawValue] = similarityKey
        container[CodingKeys.automatic.rawValue] = automatic
    }

    init(id: String, draft: ApprovalDraft, receivedAt: Date = Date()) throws {
        guard draft.isStorable else {
            throw StoreError.unstorable("an approval requested at \(draft.requestedAt.timeIntervalSince1970) and expiring at \(draft.expiresAt.timeIntervalSince1970) (seconds since 1970) has a time outside 1970–9999")
        }
        self.id = id
        provider = draft.provider.rawValue
        accountId = draft.accountId
        kind = draft.kind.rawValue
        numbers = try draft.numbers.map(Self.json)
        title = draft.title
        message = draft.message
        context = try Self.json(draft.context)
        state = ApprovalState.pending.rawValue
        requestedAt = draft.requestedAt
        expiresAt = draft.expiresAt
        dedupeKey = draft.dedupeKey
        answerContext = draft.answerContext
        self.receivedAt = receivedAt
        similarityKey = draft.similarityKey
    }

    func approval() throws -> Approval {
        let decoder = JSONDecoder()
        return try approval(numbers: numbers.map { try decoder.decode([String].self, from: Data($0.utf8)) },
                            context: decoder.decode(ApprovalContext.self, from: Data(context.utf8)))
    }

    /// The approval of a record just made from `draft`, without decoding again the columns just encoded from it.
    func approval(of draft: ApprovalDraft) throws -> Approval {
        var context = draft.context
        // What the column reads back as: an optional's JSON null decodes as its absence.
        if context.raw == .null { context.raw = nil }
        return try approval(numbers: draft.numbers, context: context)
    }

    private func approval(numbers: [String]?, context: ApprovalContext) throws -> Approval {
        guard let provider = Provider.known(provider), let kind = ApprovalKind(rawValue: kind),
              let state = ApprovalState(rawValue: state) else {
            throw StoreError.corrupt("approval \(id): unknown provider, kind or state")
        }
        return Approval(
            id: id, provider: provider, accountId: accountId, kind: kind, numbers: numbers,
            title: title, message: message, context: context,
            state: state, requestedAt: requestedAt, expiresAt: expiresAt, resolvedAt: resolvedAt,
            resolution: try resolution.map { try JSONDecoder().decode(Resolution.self, from: Data($0.utf8)) },
            error: error)
    }

    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

struct ProcessedMessageRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "processed_message"
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { StoredDate.encoding }
    var relayMessageId: String
    var seq: Int64
    var processedAt: Date
    var outcome: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case relayMessageId = "relay_message_id", seq, processedAt = "processed_at", outcome
    }

    /// Every push writes one: column by column, as ApprovalRecord's.
    func encode(to container: inout PersistenceContainer) {
        container[CodingKeys.relayMessageId.rawValue] = relayMessageId
        container[CodingKeys.seq.rawValue] = seq
        container[CodingKeys.processedAt.rawValue] = StoredDate.databaseValue(processedAt)
        container[CodingKeys.outcome.rawValue] = outcome
    }
}

struct AuditRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "audit"
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { StoredDate.encoding }
    var id: Int64?
    var at: Date
    var event: String
    var peerUid: Int64?
    var peerPid: Int64?
    var peerCommand: String?
    var subject: String?
    var detail: String?

    enum CodingKeys: String, CodingKey {
        case id, at, event, peerUid = "peer_uid", peerPid = "peer_pid", peerCommand = "peer_command", subject, detail
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
