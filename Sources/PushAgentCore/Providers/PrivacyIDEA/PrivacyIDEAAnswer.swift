import Foundation

/// Answering a privacyIDEA challenge (protocols.md §4.4): a form POST to the challenge's `url`, signed with the
/// device key.
public enum PrivacyIDEAAnswer {
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case presenceRequired(choices: [String])
        case presenceNotOffered(String, choices: [String])
        case unexpectedNumber
        case wrongToken(challenge: String, credentials: String)

        public var description: String {
            switch self {
            case .presenceRequired(let choices):
                "this sign-in asks for the option shown on the sign-in screen (one of \(choices.joined(separator: ", ")))"
            case .presenceNotOffered(let answer, let choices):
                "\(answer) is not one of the offered options (\(choices.joined(separator: ", ")))"
            case .unexpectedNumber:
                "this sign-in offers no options to choose from"
            case .wrongToken(let challenge, let credentials):
                "the challenge is for token \(challenge), not \(credentials)"
            }
        }
    }

    /// The decline reason privacyIDEA (3.14+) records for "I did not start this sign-in".
    public static let fraudReason = "unknown_trigger"

    /// The signed answer. A decline carries a reason only for fraud and only when the server advertised, under a
    /// valid signature, that it reads one: an older server verifies `nonce|serial|decline` and would drop the answer.
    public static func request(challenge: PrivacyIDEAChallenge, credentials: PrivacyIDEACredentials,
                               decision: AnswerDecision) throws -> OutboundRequest {
        guard challenge.serial == credentials.serial else {
            throw Refusal.wrongToken(challenge: challenge.serial, credentials: credentials.serial)
        }
        var fields = [("serial", challenge.serial), ("nonce", challenge.nonce)]
        let signText: String
        switch decision {
        case .approve(let answer):
            let presence = try presenceAnswer(answer, for: challenge)
            signText = PrivacyIDEASignText.accept(nonce: challenge.nonce, serial: challenge.serial, presenceAnswer: presence)
            if let presence { fields.append(("presence_answer", presence)) }
        case .deny(let reason):
            let declineReason = reason == .fraud && challenge.acceptsDeclineReason ? fraudReason : nil
            signText = PrivacyIDEASignText.decline(nonce: challenge.nonce, serial: challenge.serial, reason: declineReason)
            fields.append(("decline", "1"))
            if let declineReason { fields.append(("decline_reason", declineReason)) }
        }
        fields.append(("signature", try credentials.deviceKey().sign(signText)))
        return PrivacyIDEAHTTP.post(to: challenge.url, fields, verifyTLS: challenge.sslVerify)
    }

    private static func presenceAnswer(_ answer: String?, for challenge: PrivacyIDEAChallenge) throws(Refusal) -> String? {
        guard let choices = challenge.presenceOptions else {
            guard answer == nil else { throw .unexpectedNumber }
            return nil
        }
        guard let answer else { throw .presenceRequired(choices: choices) }
        guard choices.contains(answer) else { throw .presenceNotOffered(answer, choices: choices) }
        return answer
    }
}
