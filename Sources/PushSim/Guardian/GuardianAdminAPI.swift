import Foundation

/// The Guardian role's admin API JSON (snake_case), shared by the server and `pushsim guardian …`.
extension SimAdminAPI {
    public enum Guardian {
        public struct EnrollURIRequest: Codable, Sendable, EnrollmentLabelRequest {
            /// The label's account; default `alice`.
            public var account: String?
            /// The tenant name (`issuer`); default `PushSim`.
            public var issuer: String?
            /// Put a TOTP secret in the URI and the enrollment reply (default true); false plays a tenant without OTP.
            public var totp: Bool?
            /// `base_url` instead of the sim's public URL (the sim serves its API under `/api` and `/appliance-mfa/api`).
            public var baseURL: String?

            public init(account: String? = nil, issuer: String? = nil, totp: Bool? = nil, baseURL: String? = nil) {
                self.account = account
                self.issuer = issuer
                self.totp = totp
                self.baseURL = baseURL
            }

            enum CodingKeys: String, CodingKey { case account, issuer, totp, baseURL = "base_url" }
        }

        public struct EnrollURIResponse: Codable, Sendable {
            /// `otpauth://totp/…?enrollment_tx_id=…&base_url=…`, what Guardian's QR code holds.
            public var uri: String
            /// The ticket; one enrollment may use it.
            public var enrollmentTxId: String
            /// The enrollment id the ticket completes (the URI's `id`).
            public var deviceId: String
            public var issuer: String
            public var baseURL: String

            enum CodingKeys: String, CodingKey {
                case uri, enrollmentTxId = "enrollment_tx_id", deviceId = "device_id", issuer, baseURL = "base_url"
            }
        }

        public struct PushRequest: Codable, Sendable {
            /// The enrollment id (`dev_…`); default the most recently enrolled device still enrolled.
            public var device: String?
            /// An earlier transaction's id resends its exact data map (a duplicate or replayed push).
            public var transactionId: String?
            /// Send to the device's token a push whose `dai` names no enrolled device.
            public var unknownDevice: Bool?
            /// How long the transaction can be resolved, seconds; default 300.
            public var ttl: Int?
            /// Seconds before now the sign-in started (`d`); default 0.
            public var age: Int?
            /// `sh`; default the host of the sim's public URL.
            public var hostname: String?
            public var browser: String?
            public var browserVersion: String?
            public var os: String?
            public var osVersion: String?
            public var location: String?
            public var latitude: String?
            public var longitude: String?

            public init(device: String? = nil, transactionId: String? = nil, unknownDevice: Bool? = nil,
                        ttl: Int? = nil, age: Int? = nil, hostname: String? = nil, browser: String? = nil,
                        browserVersion: String? = nil, os: String? = nil, osVersion: String? = nil,
                        location: String? = nil, latitude: String? = nil, longitude: String? = nil) {
                self.device = device
                self.transactionId = transactionId
                self.unknownDevice = unknownDevice
                self.ttl = ttl
                self.age = age
                self.hostname = hostname
                self.browser = browser
                self.browserVersion = browserVersion
                self.os = os
                self.osVersion = osVersion
                self.location = location
                self.latitude = latitude
                self.longitude = longitude
            }

            enum CodingKeys: String, CodingKey {
                case device, transactionId = "transaction_id", unknownDevice = "unknown_device", ttl, age, hostname
                case browser, browserVersion = "browser_version", os, osVersion = "os_version", location, latitude
                case longitude
            }
        }

        public struct PushResponse: Codable, Sendable {
            public var transactionId: String
            /// The device whose token the push went to.
            public var device: String
            /// `txtkn`: the answer's bearer (tests use it to resolve by hand).
            public var txtkn: String
            public var challenge: String
            /// The FCM data map sent.
            public var data: [String: String]
            public var expiresAt: Date

            enum CodingKeys: String, CodingKey {
                case transactionId = "transaction_id", device, txtkn, challenge, data, expiresAt = "expires_at"
            }
        }

        public enum State: String, Codable, Sendable {
            case pending, accepted, rejected
        }

        /// One call of `resolve-transaction`, whatever became of it.
        public struct Resolution: Codable, Sendable {
            public var seq: Int
            /// nil when the bearer named no transaction.
            public var transactionId: String?
            /// `accepted` or `rejected` as the JWT said; nil when the JWT did not verify or decode.
            public var accepted: Bool?
            public var reason: String?
            /// Signature under the enrolled key and every claim checked.
            public var verified: Bool
            /// The HTTP status the sim answered.
            public var status: Int
            /// Why it was refused.
            public var error: String?
            public var at: Date

            enum CodingKeys: String, CodingKey {
                case seq, transactionId = "transaction_id", accepted, reason, verified, status, error, at
            }
        }

        public struct ResolutionsResponse: Codable, Sendable {
            public var resolutions: [Resolution]
        }

        public struct Transaction: Codable, Sendable {
            public var id: String
            public var device: String
            /// The push named an enrollment id no device has (`unknown_device`).
            public var unknownDevice: Bool
            public var state: State
            /// `auth0_guardian_reason` of the rejection, if it gave one.
            public var reason: String?
            /// The resolution that settled it verified; false while pending.
            public var verified: Bool
            public var challenge: String
            public var pushes: Int
            public var expiresAt: Date
            /// Every resolve call for it, refused ones included.
            public var resolutions: [Resolution]

            enum CodingKeys: String, CodingKey {
                case id, device, unknownDevice = "unknown_device", state, reason, verified, challenge, pushes
                case expiresAt = "expires_at", resolutions
            }
        }

        public struct TokenChange: Codable, Sendable {
            public var token: String
            /// `jwt` (the signed device-account JWT) or `device_token` (the enrollment's bearer, deprecated).
            public var auth: String
            public var at: Date
        }

        public struct Device: Codable, Sendable {
            /// The enrollment id, `dev_…`.
            public var id: String
            public var account: String
            public var issuer: String
            /// The device's own identifier (every answer's `iss`).
            public var identifier: String
            public var name: String
            public var service: String
            public var pushToken: String
            public var userId: String
            /// Where the device enrolled: `<public url>/api` or `<public url>/appliance-mfa/api`'s base.
            public var apiBase: String
            public var enrolledAt: Date
            public var tokenChanges: [TokenChange]
            public var deleted: Bool
            /// `jwt` or `device_token`, when deleted.
            public var deletedBy: String?

            enum CodingKeys: String, CodingKey {
                case id, account, issuer, identifier, name, service, pushToken = "push_token", userId = "user_id"
                case apiBase = "api_base", enrolledAt = "enrolled_at", tokenChanges = "token_changes", deleted
                case deletedBy = "deleted_by"
            }
        }

        public struct DevicesResponse: Codable, Sendable {
            public var devices: [Device]
        }
    }
}
