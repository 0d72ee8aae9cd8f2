import Foundation

/// The ForgeRock role's admin API JSON (snake_case), shared by the server and `pushsim forgerock …`.
extension SimAdminAPI {
    public struct EnrollURIRequest: Codable, Sendable, EnrollmentLabelRequest {
        public var account: String?
        public var issuer: String?
        public var totp: Bool?

        public init(account: String? = nil, issuer: String? = nil, totp: Bool? = nil) {
            self.account = account
            self.issuer = issuer
            self.totp = totp
        }
    }

    /// `POST /sim/forgerock/outage`: while `down`, AM's endpoints answer 503, as an AM being restarted would.
    public struct Outage: Codable, Sendable {
        public var down: Bool

        public init(down: Bool) { self.down = down }
    }

    public struct EnrollURIResponse: Codable, Sendable {
        public var uri: String
    }

    public struct PushRequest: Codable, Sendable {
        /// Default: the most recently registered account.
        public var account: String?
        /// `default`, `challenge` or `biometric`; default `default`.
        public var type: String?
        /// Seconds; default 120.
        public var ttl: Int?
        public var message: String?
        /// Issue time to claim (epoch ms), to send an already-expired push.
        public var issuedAtMs: Int64?
        /// An id already sent resends that exact push (a duplicate delivery); a new one is used as the id.
        public var messageId: String?

        public init(account: String? = nil, type: String? = nil, ttl: Int? = nil, message: String? = nil,
                    issuedAtMs: Int64? = nil, messageId: String? = nil) {
            self.account = account
            self.type = type
            self.ttl = ttl
            self.message = message
            self.issuedAtMs = issuedAtMs
            self.messageId = messageId
        }

        enum CodingKeys: String, CodingKey {
            case account, type, ttl, message, issuedAtMs = "issued_at_ms", messageId = "message_id"
        }
    }

    public struct PushResponse: Codable, Sendable {
        public var messageId: String
        public var account: String
        public var numbers: [String]?
        /// For challenge pushes: the number the sign-in page would show.
        public var correctNumber: String?
        /// When the sim began sending the push to its transport (`MonotonicTime`): where pushbench's "push sent"
        /// starts.
        public var sendStartedNs: UInt64?

        enum CodingKeys: String, CodingKey {
            case messageId = "message_id", account, numbers, correctNumber = "correct_number",
                 sendStartedNs = "send_started_ns"
        }
    }

    public enum Outcome: String, Codable, Sendable {
        case approved, denied, rejected
    }

    /// One answer the AM endpoint received, whatever became of it.
    public struct Answer: Codable, Sendable {
        public var seq: Int
        public var messageId: String
        public var account: String?
        public var outcome: Outcome
        public var number: String?
        /// The JWT verified under the account's secret and its response matched the push's challenge.
        public var verified: Bool
        /// Why AM answered 400.
        public var error: String?

        enum CodingKeys: String, CodingKey {
            case seq, messageId = "message_id", account, outcome, number, verified, error
        }
    }

    public struct AnswersResponse: Codable, Sendable {
        public var answers: [Answer]
    }

    public struct Registration: Codable, Sendable {
        public var account: String
        public var issuer: String
        public var mechanismUid: String
        public var deviceToken: String
        public var deviceName: String
        public var registeredAt: Date

        enum CodingKeys: String, CodingKey {
            case account, issuer, mechanismUid = "mechanism_uid", deviceToken = "device_token"
            case deviceName = "device_name", registeredAt = "registered_at"
        }
    }

    public struct RegistrationsResponse: Codable, Sendable {
        public var registrations: [Registration]
    }
}
