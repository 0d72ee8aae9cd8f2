import Foundation

/// The PlusAuth role's admin API JSON (snake_case), shared by the server and `pushsim plusauth …`.
extension SimAdminAPI {
    public enum PlusAuth {
        public struct EnrollURIRequest: Codable, Sendable, EnrollmentLabelRequest {
            public var account: String?
            public var issuer: String?
            /// The TOTP hash: SHA1, SHA256 (default, as PlusAuth's sample) or SHA512.
            public var algorithm: String?
            public var digits: Int?
            public var period: Int?

            public init(account: String? = nil, issuer: String? = nil, algorithm: String? = nil, digits: Int? = nil,
                        period: Int? = nil) {
                self.account = account
                self.issuer = issuer
                self.algorithm = algorithm
                self.digits = digits
                self.period = period
            }
        }

        public struct PushRequest: Codable, Sendable {
            /// Default: the most recently enrolled account.
            public var account: String?
            /// `code` (default) or `prompt`.
            public var type: String?
            /// Seconds from `iat` to `exp`; default 120.
            public var ttl: Int?
            /// `settings.bind_sim`.
            public var bindSim: Bool?
            /// Send a context whose `exp` passed ten minutes ago.
            public var expired: Bool?
            /// Change the signed payload after signing (the signature no longer matches).
            public var tampered: Bool?
            /// `info.application`; default the issuer.
            public var application: String?
            /// The path of `resolve_url`; default `/push-authenticator/resolve`.
            public var resolvePath: String?
            /// An earlier push's id resends that exact context (a duplicate delivery).
            public var pushId: String?

            public init(account: String? = nil, type: String? = nil, ttl: Int? = nil, bindSim: Bool? = nil,
                        expired: Bool? = nil, tampered: Bool? = nil, application: String? = nil,
                        resolvePath: String? = nil, pushId: String? = nil) {
                self.account = account
                self.type = type
                self.ttl = ttl
                self.bindSim = bindSim
                self.expired = expired
                self.tampered = tampered
                self.application = application
                self.resolvePath = resolvePath
                self.pushId = pushId
            }

            enum CodingKeys: String, CodingKey {
                case account, type, ttl, bindSim = "bind_sim", expired, tampered, application
                case resolvePath = "resolve_path", pushId = "push_id"
            }
        }

        public struct PushResponse: Codable, Sendable {
            public var pushId: String
            public var account: String
            public var type: String
            public var values: [String]?
            /// For code pushes: the value the sign-in page would show.
            public var correctValue: String?
            public var expiresAt: Date

            enum CodingKeys: String, CodingKey {
                case pushId = "push_id", account, type, values, correctValue = "correct_value", expiresAt = "expires_at"
            }
        }

        public enum Outcome: String, Codable, Sendable {
            case approved, denied, rejected
        }

        /// One answer a resolve endpoint received, whatever became of it.
        public struct Answer: Codable, Sendable {
            public var seq: Int
            public var pushId: String?
            public var account: String?
            public var outcome: Outcome
            public var value: String?
            public var rejectReason: String?
            /// The JWT verified under the enrolled key and algorithm.
            public var verified: Bool
            /// The path the answer was posted to.
            public var endpoint: String
            /// Why the endpoint refused it.
            public var error: String?

            enum CodingKeys: String, CodingKey {
                case seq, pushId = "push_id", account, outcome, value, rejectReason = "reject_reason", verified
                case endpoint, error
            }
        }

        public struct AnswersResponse: Codable, Sendable {
            public var answers: [Answer]
        }

        public struct Registration: Codable, Sendable {
            public var account: String
            public var issuer: String
            /// ES256 or RS256, from the uploaded key.
            public var algorithm: String
            public var keyId: String?
            public var deviceIdentifier: String
            public var deviceToken: String
            public var service: String
            public var registeredAt: Date

            enum CodingKeys: String, CodingKey {
                case account, issuer, algorithm, keyId = "key_id", deviceIdentifier = "device_identifier"
                case deviceToken = "device_token", service, registeredAt = "registered_at"
            }
        }

        public struct RegistrationsResponse: Codable, Sendable {
            public var registrations: [Registration]
        }
    }
}
