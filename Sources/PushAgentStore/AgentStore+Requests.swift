import Foundation
import GRDB
import PushAgentCore

/// A request this device made, with what its provider's module needs to finish it.
public struct StoredTwoFactorRequest: Sendable {
    public var request: TwoFactorRequest
    public var context: Data
}

extension AgentStore {
    public func insertRequest(_ request: TwoFactorRequest, context: Data) async throws {
        try await pool.write { db in try TwoFactorRequestRecord(request, context: context).insert(db) }
    }

    /// Newest first.
    public func requests() async throws -> [TwoFactorRequest] {
        try await pool.read { db in
            try TwoFactorRequestRecord.order(Column("created_at").desc).fetchAll(db).map { try $0.request() }
        }
    }

    /// A request by id or unique id prefix.
    public func request(matching idOrPrefix: String) async throws -> StoredTwoFactorRequest {
        try await pool.read { db in
            let record = try Self.resolve(TwoFactorRequestRecord.self, idOrPrefix, what: "request", db)
            return StoredTwoFactorRequest(request: try record.request(), context: record.context)
        }
    }

    /// Moves a request along its state machine; a transition it does not allow is a conflict.
    @discardableResult
    public func transitionRequest(_ id: String, to next: TwoFactorRequestState, txId: String? = nil,
                                  error: String? = nil, now: Date = Date()) async throws -> TwoFactorRequest {
        try await pool.write { db in
            guard var record = try TwoFactorRequestRecord.fetchOne(db, key: id) else {
                throw StoreError.notFound("no request \(id)")
            }
            try Self.move(&record, to: next, txId: txId, error: error, now: now)
            try record.update(db)
            return try record.request()
        }
    }

    /// Requests still waiting for the other device or for this one to finish: resumed when the daemon starts.
    public func unfinishedRequests() async throws -> [StoredTwoFactorRequest] {
        try await pool.read { db in
            try TwoFactorRequestRecord.filter(["pending", "approved"].contains(Column("state"))).fetchAll(db).map {
                StoredTwoFactorRequest(request: try $0.request(), context: $0.context)
            }
        }
    }

    /// What a status push does to the request it names, inside the message's transaction: a request already moved
    /// that way (or past it) is a duplicate; one this device does not have is refused and kept in history.
    static func apply(_ update: TwoFactorRequestUpdate, now: Date, _ db: Database) throws -> MessageOutcome {
        guard var record = try TwoFactorRequestRecord
            .filter(Column("provider") == update.provider.rawValue && Column("remote_id") == update.remoteId)
            .fetchOne(db)
        else {
            return .rejected(PushRejection(.unknownRequest,
                                           "\(update.provider.rawValue) status change (\(update.state.rawValue)) for request \(update.remoteId), which this device did not make"))
        }
        guard record.accountId == update.accountId else {
            return .rejected(PushRejection(.unknownRequest,
                                           "status change for request \(update.remoteId) names another account"))
        }
        guard let current = TwoFactorRequestState(rawValue: record.state), current.canTransition(to: update.state) else {
            return .duplicate(existingApprovalId: nil)
        }
        try move(&record, to: update.state, txId: update.txId, error: nil, now: now)
        try record.update(db)
        return .requestUpdated(try record.request())
    }

    private static func move(_ record: inout TwoFactorRequestRecord, to next: TwoFactorRequestState, txId: String?,
                             error: String?, now: Date) throws {
        let current = try record.request().state
        guard current.canTransition(to: next) else {
            throw StoreError.conflict("request \(record.id) is \(current.rawValue); it cannot become \(next.rawValue)")
        }
        record.state = next.rawValue
        record.updatedAt = now
        if let txId { record.txId = txId }
        if let error { record.error = error }
    }

    // MARK: Provider state kept with approvals

    /// Replaces what an approval's responder keeps, so an answer that takes several steps records how far it got.
    public func updateAnswerContext(approvalId: String, _ context: Data) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE approval SET answer_context = ? WHERE id = ?", arguments: [context, approvalId])
        }
    }
}

struct TwoFactorRequestRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "two_factor_request"
    var id: String
    var provider: String
    var accountId: String
    var remoteId: String
    var title: String
    var message: String
    var state: String
    var createdAt: Date
    var expiresAt: Date
    var updatedAt: Date
    var txId: String?
    var error: String?
    var context: Data

    enum CodingKeys: String, CodingKey {
        case id, provider, accountId = "account_id", remoteId = "remote_id", title, message, state
        case createdAt = "created_at", expiresAt = "expires_at", updatedAt = "updated_at", txId = "tx_id", error, context
    }

    init(_ request: TwoFactorRequest, context: Data) {
        id = request.id
        provider = request.provider.rawValue
        accountId = request.accountId
        remoteId = request.remoteId
        title = request.title
        message = request.message
        state = request.state.rawValue
        createdAt = request.createdAt
        expiresAt = request.expiresAt
        updatedAt = request.updatedAt
        txId = request.txId
        error = request.error
        self.context = context
    }

    func request() throws -> TwoFactorRequest {
        guard let provider = Provider.known(provider), let state = TwoFactorRequestState(rawValue: state) else {
            throw StoreError.corrupt("request \(id): unknown provider or state")
        }
        return TwoFactorRequest(id: id, provider: provider, accountId: accountId, remoteId: remoteId, title: title,
                                message: message, state: state, createdAt: createdAt, expiresAt: expiresAt,
                                updatedAt: updatedAt, txId: txId, error: error)
    }
}
