import Foundation

/// Answering a ForgeRock push (protocols.md §1.4).
public enum ForgeRockAnswer {
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case numberRequired
        case numberNotOffered(String, choices: [String])
        case wrongAccount(notification: String, credentials: String)
        case malformedChallenge

        public var description: String {
            switch self {
            case .numberRequired:
                "this sign-in asks for the number shown on the sign-in screen"
            case .numberNotOffered(let number, let choices):
                "\(number) is not one of the offered numbers (\(choices.joined(separator: ", ")))"
            case .wrongAccount(let notification, let credentials):
                "the push is for mechanism \(notification), not \(credentials)"
            case .malformedChallenge:
                "the stored push has no usable challenge"
            }
        }
    }

    /// The POST to the account's authentication URL. A challenge push needs `.approve(number:)` with one of its numbers.
    public static func request(notification: ForgeRockNotification, credentials: ForgeRockCredentials,
                               decision: AnswerDecision) async throws -> OutboundRequest {
        guard notification.mechanismUid == credentials.mechanismUid else {
            throw Refusal.wrongAccount(notification: notification.mechanismUid, credentials: credentials.mechanismUid)
        }
        guard let challenge = LenientBase64.decode(notification.challenge), !challenge.isEmpty else {
            throw Refusal.malformedChallenge
        }
        let response = ForgeRockChallenge.response(secret: credentials.sharedSecret, challenge: challenge)
        var claims = ForgeRockAnswerClaims(response: response)
        switch decision {
        case .approve(let number):
            if let choices = notification.numbers {
                guard let number else { throw Refusal.numberRequired }
                guard choices.contains(number) else { throw Refusal.numberNotOffered(number, choices: choices) }
                claims.challengeResponse = number
            }
        case .deny:
            claims.deny = true
        }
        let jwt = try await HS256.sign(claims, key: credentials.sharedSecret)
        return try ForgeRockHTTP.post(to: credentials.authenticationURL, messageId: notification.messageId, jwt: jwt,
                                      cookie: notification.cookie)
    }
}
