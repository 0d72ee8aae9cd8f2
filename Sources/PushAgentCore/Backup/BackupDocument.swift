import Foundation

/// What a backup file encrypts (docs/backup.md): every account with what a daemon needs to verify and answer its
/// pushes, as JSON. Its own `format` lets the document change while the file's envelope stays the same.
public struct BackupDocument: Codable, Sendable, Equatable {
    public static let currentFormat = 1

    public var format: Int
    public var createdAt: Date
    public var accounts: [BackupAccount]

    public init(createdAt: Date, accounts: [BackupAccount]) {
        self.format = Self.currentFormat
        self.createdAt = createdAt
        self.accounts = accounts
    }

    enum CodingKeys: String, CodingKey { case format, createdAt = "created_at", accounts }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(self)
    }

    /// Reads a decrypted document; a newer `format` is refused before anything else is read from it.
    public static func decode(_ data: Data) throws(BackupFileError) -> BackupDocument {
        struct Format: Decodable { var format: Int }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let format = try? decoder.decode(Format.self, from: data).format else {
            throw .unreadableDocument("it has no format number")
        }
        guard format <= currentFormat else { throw .futureVersion(format, supported: currentFormat) }
        guard format == currentFormat else { throw .unsupportedVersion(format) }
        do { return try decoder.decode(BackupDocument.self, from: data) }
        catch let error as BackupFileError { throw error }
        catch { throw .unreadableDocument(DecodingFailure.summary(error)) }
    }
}

/// One account as backed up: the store's account row, with its provider credentials kept opaque.
public struct BackupAccount: Codable, Sendable, Equatable {
    public var id: String
    public var provider: Provider
    public var issuer: String
    public var name: String
    public var createdAt: Date
    /// How the provider's pushes find the account (its key id, device id or serial).
    public var lookupKey: String
    /// The provider module's credentials JSON (keys, URLs, binding state), byte for byte.
    public var credentials: Data
    public var totp: TOTPParameters?
    /// The provider binds the account to the machine it was enrolled on (PlusAuth bind_sim): restored elsewhere,
    /// it must be enrolled again.
    public var boundToMachine: Bool

    public init(id: String, provider: Provider, issuer: String, name: String, createdAt: Date, lookupKey: String,
                credentials: Data, totp: TOTPParameters?, boundToMachine: Bool) {
        self.id = id
        self.provider = provider
        self.issuer = issuer
        self.name = name
        self.createdAt = createdAt
        self.lookupKey = lookupKey
        self.credentials = credentials
        self.totp = totp
        self.boundToMachine = boundToMachine
    }

    enum CodingKeys: String, CodingKey {
        case id, provider, issuer, name, createdAt = "created_at", lookupKey = "lookup_key", credentials, totp
        case boundToMachine = "bound_to_machine"
    }

    /// Read by its id first, so that whatever else is wrong with it is said of that account: a provider this
    /// pushagent does not know, or a field that does not read.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        let providerName = try c.decode(String.self, forKey: .provider)
        guard let provider = ProviderRegistry.provider(named: providerName) else {
            throw BackupFileError.unknownProvider(account: id, provider: providerName)
        }
        self.provider = provider
        do {
            issuer = try c.decode(String.self, forKey: .issuer)
            name = try c.decode(String.self, forKey: .name)
            createdAt = try c.decode(Date.self, forKey: .createdAt)
            lookupKey = try c.decode(String.self, forKey: .lookupKey)
            credentials = try c.decode(Data.self, forKey: .credentials)
            totp = try c.decodeIfPresent(TOTPParameters.self, forKey: .totp)
            boundToMachine = try c.decode(Bool.self, forKey: .boundToMachine)
        } catch {
            throw BackupFileError.unfitAccount(account: id, problems: [DecodingFailure.summary(error)])
        }
    }

    /// What keeps this account out of a store, by the bounds enrollment and the wire keep: an id pushagent makes
    /// (else it could never be removed), fields no longer than an enrollment URI carries, and a time the store can
    /// read back. Its credentials are its provider's to judge.
    public var problems: [String] {
        var found: [String] = []
        if !Identifier.isWellFormed(id, prefix: "acc") {
            found.append("its id is not one pushagent makes (\(Identifier.shape(prefix: "acc")))")
        }
        for (field, value) in [("issuer", issuer), ("name", name), ("lookup_key", lookupKey)]
        where value.utf8.count > Account.maximumFieldBytes {
            found.append("its \(field) is \(value.utf8.count) bytes long, more than the \(Account.maximumFieldBytes) an enrollment URI can carry")
        }
        if lookupKey.isEmpty { found.append("its lookup_key is empty, so no push could find it") }
        if !WireTime.isRepresentable(createdAt) {
            found.append("its created_at (\(createdAt.timeIntervalSince1970) seconds since 1970) is not a time between 1970 and 9999")
        }
        return found
    }
}
