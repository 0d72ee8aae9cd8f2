import Foundation

/// What a privacyIDEA server (3.14+) says it understands, under a signature detached from the challenge's own
/// (protocols.md §4.3): base32 PKCS#1 v1.5 SHA-256 over the RFC 8785 form of `{"capabilities": …, "nonce": …}`.
public struct PrivacyIDEACapabilities: Sendable, Equatable {
    /// The server reads a signed `decline_reason`; older servers would drop such an answer.
    public var declineReason: Bool

    /// The exact bytes the server signs: the JCS of the parsed capabilities together with the nonce, so a signature
    /// cannot be moved to another challenge.
    public static func signingInput(capabilities: JSONValue, nonce: String) -> String {
        CanonicalJSON.serialize(.object(["capabilities": capabilities, "nonce": .string(nonce)]))
    }

    /// The capabilities of a challenge when present and signed by `serverKey` for this nonce; nil otherwise
    /// (absent, unreadable, or a signature that does not verify: the answer then uses only the legacy fields).
    public static func verified(in data: [String: String], nonce: String, serverKey: PrivacyIDEAServerKey)
        -> PrivacyIDEACapabilities? {
        guard let text = data["capabilities"], let signature = data["capabilities_signature"],
              let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)),
              case .object = parsed,
              serverKey.isValid(signature, of: signingInput(capabilities: parsed, nonce: nonce))
        else { return nil }
        return PrivacyIDEACapabilities(declineReason: parsed["decline_reason"] == .bool(true))
    }
}
