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
        catch { throw .unreadableDocument("\(error)") }
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
}
