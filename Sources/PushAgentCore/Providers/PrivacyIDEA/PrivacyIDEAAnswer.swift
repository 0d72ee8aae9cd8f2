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

    /// In code-to-phone mode (policy `push_code_to_phone`, 3.13+) an accepted answer's reply carries a code the user
    /// types into the sign-in screen, and the text to show above it (protocols.md §4.4).
    public struct Reply: Equatable, Sendable {
        public var displayCode: String?
        public var message: String?
    }

    /// The reply to an answer: refused unless `result.value` is true; then what it asks the user to do, if anything.
    public static func reply(from body: Data) throws(PrivacyIDEAReplyError) -> Reply {
        try PrivacyIDEAPoll.confirmed(body, what: "answer")
        struct Body: Decodable {
            struct Detail: Decodable {
                var displayCode: String?
                var message: String?
                enum CodingKeys: String, CodingKey { case displayCode = "display_code", message }
            }
            var detail: Detail?
        }
        let detail = (try? JSONDecoder().decode(Body.self, from: body))?.detail
        guard let code = detail?.displayCode, !code.isEmpty else { return Reply() }
        return Reply(displayCode: code, message: detail?.message)
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
