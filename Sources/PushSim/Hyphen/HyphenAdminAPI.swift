import Foundation

/// The Hyphen role's admin API JSON (snake_case), shared by the server and `pushsim hyphen …`.
extension SimAdminAPI {
    public struct HyphenUserRequest: Codable, Sendable {
        /// Default: a fresh `userN@example.com`.
        public var email: String?
        /// The user already has an account with a phone (the sim's device) that can approve this device's sign-in;
        /// without it the first sign-in signs up.
        public var existingDevice: Bool?

        public init(email: String? = nil, existingDevice: Bool? = nil) {
            self.email = email
            self.existingDevice = existingDevice
        }

        enum CodingKeys: String, CodingKey { case email, existingDevice = "existing_device" }
    }

    public struct HyphenUser: Codable, Sendable {
        public var email: String
        /// The `hyphen://` URI to enroll.
        public var uri: String
        /// The sign-in token for `pushctl hyphen signin --credential`.
        public var credential: String
        public var address: String?
    }

    public struct HyphenPushRequest: Codable, Sendable {
        /// Default: the user whose device registered last.
        public var email: String?
        /// Seconds until `expiresAt`; default 180; zero or negative sends an already expired request.
        public var expiresIn: Int?
        /// Replaces `request.message` (default: a `{"cadence": …}` adding the requesting device's key).
        public var message: String?

        public init(email: String? = nil, expiresIn: Int? = nil, message: String? = nil) {
            self.email = email
            self.expiresIn = expiresIn
            self.message = message
        }

        enum CodingKeys: String, CodingKey { case email, expiresIn = "expires_in", message }
    }

    public struct HyphenPushResponse: Codable, Sendable {
        /// `twoFactorAuth.id`.
        public var id: String
        public var email: String
    }

    public struct HyphenDecision: Codable, Sendable {
        /// Send the `2fa-status-change` push (default true); false leaves the agent to poll.
        public var push: Bool?
        public init(push: Bool? = nil) { self.push = push }
    }

    /// One 2FA request, whichever device made it.
    public struct HyphenTwoFactor: Codable, Sendable {
        public var id: String
        public var email: String
        /// `to_agent`: the agent is asked to approve; `from_agent`: the agent asked the sim's phone.
        public var direction: String
        public var status: String
        public var txId: String?
        /// The requesting device's key (the agent's, for `from_agent`).
        public var requesterPublicKey: String

        enum CodingKeys: String, CodingKey {
            case id, email, direction, status, txId = "tx_id", requesterPublicKey = "requester_public_key"
        }
    }

    public struct HyphenTwoFactors: Codable, Sendable {
        public var requests: [HyphenTwoFactor]
    }

    /// What the agent did with a request it was asked to approve.
    public struct HyphenAnswer: Codable, Sendable {
        public var seq: Int
        public var id: String
        public var email: String?
        public var outcome: Outcome
        public var txId: String?
        /// The transaction was sealed, signed by the device key, Hyphen's server key and the paymaster, and runs the
        /// request's script.
        public var verified: Bool
        public var error: String?

        enum CodingKeys: String, CodingKey { case seq, id, email, outcome, txId = "tx_id", verified, error }
    }

    public struct HyphenAnswers: Codable, Sendable {
        public var answers: [HyphenAnswer]
    }

    /// A transaction the access node accepted.
    public struct FlowTransactionRecord: Codable, Sendable {
        public var id: String
        public var proposer: String
        public var keyIndex: UInt32
        public var script: String
        public var status: String
        public var payloadSigners: [String]
        public var envelopeSigners: [String]

        enum CodingKeys: String, CodingKey {
            case id, proposer, keyIndex = "key_index", script, status
            case payloadSigners = "payload_signers", envelopeSigners = "envelope_signers"
        }
    }

    public struct FlowTransactionRecords: Codable, Sendable {
        public var transactions: [FlowTransactionRecord]
    }
}
