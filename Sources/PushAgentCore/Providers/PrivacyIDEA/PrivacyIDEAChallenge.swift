import Foundation

/// A verified privacyIDEA challenge (protocols.md §4.3): everything needed to show it and, later, to answer it.
public struct PrivacyIDEAChallenge: AnswerContext, Sendable, Equatable {
    public var nonce: String
    public var serial: String
    public var question: String
    public var title: String
    /// Where the answer goes.
    public var url: String
    /// `sslverify`: check TLS when answering.
    public var sslVerify: Bool
    /// `require_presence`: the user must pick the option shown at sign-in.
    public var presenceOptions: [String]?
    /// The server advertised, under a valid signature, that it reads `decline_reason`.
    public var acceptsDeclineReason: Bool
    public var receivedAt: Date

    /// The app's rule (protocols.md §6): two minutes from receipt, the server's default challenge validity.
    public static let lifetime: TimeInterval = 120

    public var expiresAt: Date { receivedAt.addingTimeInterval(Self.lifetime) }

}

/// Reading a challenge (FCM data through the relay, or one element of a poll's `result.value`). Two steps because
/// the key depends on the account: `peekSerial` names the token, `verify` checks with its server key.
public enum PrivacyIDEAPush {
    /// Whether a push is privacyIDEA's: a signed challenge for a token serial.
    public static func claims(_ data: [String: String]) -> Bool {
        data["nonce"] != nil && data["serial"] != nil && data["signature"] != nil
    }

    /// The token the challenge claims to be for, UNVERIFIED: use it only to look up the key to pass to `verify`.
    public static func peekSerial(_ data: [String: String]) throws(PushRejection) -> String {
        guard let serial = data["serial"], !serial.isEmpty else {
            throw PushRejection(.malformed, "privacyIDEA challenge: 'serial' is missing")
        }
        return serial
    }

    /// Verifies the signature over the sign string before any field is trusted, then the detached capabilities
    /// signature (a capability that does not verify is ignored, never trusted).
    public static func verify(_ data: [String: String], serverKey: PrivacyIDEAServerKey, receivedAt: Date)
        throws(PushRejection) -> PrivacyIDEAChallenge {
        func field(_ name: String) throws(PushRejection) -> String {
            guard let value = data[name] else {
                throw PushRejection(.malformed, "privacyIDEA challenge: '\(name)' is missing")
            }
            return value
        }
        let nonce = try field("nonce"), serial = try field("serial"), signature = try field("signature")
        guard !nonce.isEmpty else { throw PushRejection(.malformed, "privacyIDEA challenge: 'nonce' is empty") }
        let url = try field("url"), question = try field("question"), title = try field("title")
        let sslVerify = try field("sslverify")
        let presence = data["require_presence"]
        let signed = PrivacyIDEASignText.challenge(nonce: nonce, url: url, serial: serial, question: question,
                                                   title: title, sslVerify: sslVerify, presenceOptions: presence)
        guard serverKey.isValid(signature, of: signed) else {
            throw PushRejection(.badSignature, "privacyIDEA challenge \(nonce) for \(serial): the signature does not verify with the server's key")
        }
        guard URL(string: url)?.scheme.map({ ["http", "https"].contains($0.lowercased()) }) == true else {
            throw PushRejection(.malformed, "privacyIDEA challenge \(nonce): 'url' is not an http(s) URL")
        }
        let options = try presence.map { text throws(PushRejection) in
            let options = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard options.count >= 2, options.allSatisfy({ !$0.isEmpty }), Set(options).count == options.count else {
                throw PushRejection(.malformed, "privacyIDEA challenge \(nonce): 'require_presence' must list 2 or more distinct options")
            }
            return options
        }
        return PrivacyIDEAChallenge(
            nonce: nonce, serial: serial, question: question, title: title, url: url, sslVerify: sslVerify != "0",
            presenceOptions: options,
            acceptsDeclineReason: PrivacyIDEACapabilities.verified(in: data, nonce: nonce, serverKey: serverKey)?
                .declineReason ?? false,
            receivedAt: receivedAt)
    }
}
