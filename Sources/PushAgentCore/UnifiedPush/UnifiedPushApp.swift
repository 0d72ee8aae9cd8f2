import Crypto
import Foundation

/// A UnifiedPush app's registration, as its connector made it on the session bus (docs/webpush.md, "UnifiedPush
/// apps"): what the distributor gives the daemon, and the daemon keeps sealed with the app's subscription.
public struct UnifiedPushApp: Codable, Sendable, Equatable {
    /// The app's well-known D-Bus name, where its connector answers.
    public var service: String
    /// The connection token the connector chose: it names the registration in every call, both ways.
    public var token: String
    public var description: String?
    /// The app's VAPID public key (RFC 8292, 87 characters of base64url): the relay then requires it of senders.
    public var vapid: String?
    /// Which `org.unifiedpush.ConnectorN` interface the app is called on: 1 or 2.
    public var connectorVersion: Int

    public init(service: String, token: String, description: String?, vapid: String?, connectorVersion: Int) {
        self.service = service
        self.token = token
        self.description = description
        self.vapid = vapid
        self.connectorVersion = connectorVersion
    }

    enum CodingKeys: String, CodingKey { case service, token, description, vapid, connectorVersion = "connector_version" }

    /// What the store looks a registration up by: the token's digest, so the token itself stays sealed.
    public var tokenDigest: Data { Self.digest(ofToken: token) }

    public static func digest(ofToken token: String) -> Data { Data(SHA256.hash(data: Data(token.utf8))) }

    /// What is wrong with it, in the terms of the UnifiedPush D-Bus specification's limits; nil when nothing is.
    public var problem: String? {
        if token.isEmpty || token.utf8.count > 100 { return "a connection token is 1 to 100 bytes (this one is \(token.utf8.count))" }
        if !Self.isBusName(service) { return "'\(service)' is not a well-known D-Bus name (like org.example.App)" }
        if let description, description.utf8.count > 100 { return "a registration's description is at most 100 bytes" }
        if let vapid, vapid.count != 87 || !vapid.allSatisfy(Self.isBase64URL) {
            return "a VAPID key is an uncompressed P-256 point in 87 characters of unpadded base64url"
        }
        if ![1, 2].contains(connectorVersion) { return "the connector version is 1 or 2, not \(connectorVersion)" }
        return nil
    }

    /// The D-Bus specification's rule for well-known names: 2 or more dot-separated elements of [A-Za-z0-9_-], none
    /// starting with a digit, 255 bytes at most.
    static func isBusName(_ name: String) -> Bool {
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        return name.utf8.count <= 255 && elements.count >= 2 && elements.allSatisfy { element in
            guard let first = element.first, !first.isNumber else { return false }
            return element.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
        }
    }

    static func isBase64URL(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_")
    }
}
