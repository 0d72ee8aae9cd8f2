import Foundation

/// Reading a ForgeRock push (FCM data `{"messageId", "message": <HS256 JWT>}`, protocols.md §1.3).
/// Two steps because the key depends on the account: `peek` names the account, `verify` checks with its secret.
public enum ForgeRockPush {
    /// Whether a push is ForgeRock's: a message id and its signed message.
    public static func claims(_ data: [String: String]) -> Bool { data["messageId"] != nil && data["message"] != nil }

    /// Which account the push claims to be for, read from the UNVERIFIED payload: use it only to look up the
    /// secret to pass to `verify`.
    public static func peek(_ data: [String: String]) throws(PushRejection) -> (messageId: String, mechanismUid: String) {
        let (messageId, token) = try fields(of: data)
        let payload: PeekedClaims
        do {
            payload = try CompactJWS.unverifiedPayload(of: token, as: PeekedClaims.self)
        } catch {
            throw PushRejection(.malformed, "ForgeRock message: \(error)")
        }
        guard let uid = payload.mechanismUid, !uid.isEmpty else {
            throw PushRejection(.malformed, "ForgeRock message: claim 'u' (mechanism id) is missing")
        }
        guard payload.hasChallenge else {
            throw PushRejection(.malformed, "ForgeRock message: claim 'c' (challenge) is missing")
        }
        return (messageId, uid)
    }

    /// What `peek` reads: the mechanism id, and whether a challenge is there. Decoding only these, not the whole
    /// payload as generic JSON, is most of what a peek cost.
    private struct PeekedClaims: Decodable {
        var mechanismUid: String?
        var hasChallenge: Bool

        private enum CodingKeys: String, CodingKey { case u, c }

        init(from decoder: any Decoder) throws {
            let claims = try decoder.container(keyedBy: CodingKeys.self)
            // Not a string is as good as missing: no account has it.
            mechanismUid = try? claims.decodeIfPresent(String.self, forKey: .u)
            hasChallenge = claims.contains(.c)
        }
    }

    /// Verifies the JWT (HS256 only, signature before any claim is read) and decodes it. Expired pushes are refused.
    public static func verify(_ data: [String: String], secret: Data, receivedAt: Date) async throws(PushRejection)
        -> ForgeRockNotification {
        let (messageId, token) = try fields(of: data)
        let claims: ForgeRockNotificationClaims
        do {
            claims = try await HS256.verify(token, key: secret, as: ForgeRockNotificationClaims.self)
        } catch {
            let reason: PushRejection.Reason = switch error {
            case .algorithmNotAllowed: .algorithmNotAllowed
            case .malformed: .malformed
            // A short stored secret can verify nothing: fail closed (Android only logs this and accepts).
            case .badSignature, .keyTooShort: .badSignature
            }
            throw PushRejection(reason, "ForgeRock message \(messageId): \(error)")
        }
        let notification = try notification(messageId: messageId, claims: claims, receivedAt: receivedAt)
        guard !notification.isExpired(at: receivedAt) else {
            throw PushRejection(.expired, "ForgeRock message \(messageId) expired at \(notification.expiresAt)")
        }
        return notification
    }

    private static func fields(of data: [String: String]) throws(PushRejection) -> (messageId: String, token: String) {
        guard let messageId = data["messageId"], !messageId.isEmpty else {
            throw PushRejection(.malformed, "ForgeRock message: 'messageId' is missing")
        }
        guard let token = data["message"], !token.isEmpty else {
            throw PushRejection(.malformed, "ForgeRock message \(messageId): 'message' (the JWT) is missing")
        }
        return (messageId, token)
    }

    /// protocols.md §1.3 and §1.8.3: `u` and `c` required, `t` defaults to 120, `l` optional, `i` defaults to receipt.
    private static func notification(messageId: String, claims: ForgeRockNotificationClaims, receivedAt: Date)
        throws(PushRejection) -> ForgeRockNotification {
        func malformed(_ problem: String) -> PushRejection {
            PushRejection(.malformed, "ForgeRock message \(messageId): \(problem)")
        }
        guard let uid = claims.mechanismUid, !uid.isEmpty else { throw malformed("claim 'u' (mechanism id) is missing") }
        guard let challengeText = claims.challenge else { throw malformed("claim 'c' (challenge) is missing") }
        guard let challenge = LenientBase64.decode(challengeText), !challenge.isEmpty else {
            throw malformed("claim 'c' (challenge) is not base64")
        }
        let ttl = claims.ttl.map { Int($0) } ?? 120
        guard let ttl, ttl > 0 else { throw malformed("claim 't' (time to live) must be a positive number of seconds") }
        let cookie = try claims.cookie.map { value throws(PushRejection) in
            guard let text = LenientBase64.decodeText(value) else { throw malformed("claim 'l' (cookie) is not base64 text") }
            return text
        }
        let issuedAt = try claims.issuedAtMillis.map { value throws(PushRejection) in
            guard let millis = Int64(value), let date = WireTime.date(epochMillis: millis) else {
                throw malformed("claim 'i' (issue time) is not a time between 1970 and 9999 in epoch milliseconds")
            }
            return date
        } ?? receivedAt
        // Unknown types are treated as default (both SDKs do), which asks the least of the user.
        let pushType = claims.pushType.flatMap(ForgeRockNotification.PushType.init(rawValue:)) ?? .default
        var numbers: [String]?
        if pushType == .challenge {
            let choices = (claims.numbers ?? "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !choices.isEmpty else { throw malformed("a challenge push needs claim 'n' (the numbers)") }
            guard choices.count <= ApprovalDraft.maximumChoices,
                  choices.allSatisfy({ $0.count <= ApprovalDraft.maximumChoiceLength }) else {
                throw malformed("claim 'n' offers \(choices.count) numbers; a challenge offers 1 to \(ApprovalDraft.maximumChoices) short ones")
            }
            numbers = choices
        }
        return ForgeRockNotification(
            messageId: messageId, mechanismUid: uid, challenge: challenge.standardBase64, ttlSeconds: ttl,
            cookie: cookie, issuedAt: issuedAt, text: claims.message, pushType: pushType, numbers: numbers,
            contextInfo: claims.contextInfo.map { text in
                (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .string(text)
            },
            userId: claims.userId)
    }
}
