import Foundation
import PushAgentCore

// Request and response bodies of the control API (docs/design.md §4). JSON is snake_case.

public struct ErrorBody: Codable, Sendable {
    public var error: ControlError
    public init(_ error: ControlError) { self.error = error }
}

public struct ControlError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Codable, Sendable {
        case notFound = "not_found", conflict, expired
        case invalidArgument = "invalid_argument", forbidden, unavailable, upstream
        /// 429: a backup or restore is running, or too many wrong passwords; the message says when to retry.
        case busy
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

public struct RelayStatus: Codable, Sendable, Equatable {
    /// The relay's name among the push sources of `StatusResponse.pushSources`.
    public static let sourceName = "relay"

    public enum State: String, Codable, Sendable { case starting, registering, connected, backoff }
    public var url: String
    public var state: State
    public var nextTryAt: Date?
    public var lastError: String?
    public var lastContactAt: Date?
    /// When the relay's sequence numbers last went backwards or jumped past what it ever gave out, so the agent
    /// started over from the relay's queue (nothing is lost: what arrives again is recognized), and why.
    public var resyncedAt: Date?
    public var resyncReason: String?

    enum CodingKeys: String, CodingKey {
        case url, state, nextTryAt = "next_try_at", lastError = "last_error", lastContactAt = "last_contact_at"
        case resyncedAt = "resynced_at", resyncReason = "resync_reason"
    }
}

// The initialisers other modules use stand in extensions, so that Swift still writes the memberwise one.
extension RelayStatus {
    /// The relay at `url` before the first try: the daemon moves it on from there.
    public init(startingWith url: String) { self.init(url: url, state: .starting) }
}

public struct StatusResponse: Codable, Sendable {
    public struct Counts: Codable, Sendable {
        public var accounts: Int
        public var pending: Int
        public var rejectedPushes: Int
        public init(accounts: Int, pending: Int, rejectedPushes: Int) {
            self.accounts = accounts
            self.pending = pending
            self.rejectedPushes = rejectedPushes
        }
        enum CodingKeys: String, CodingKey { case accounts, pending, rejectedPushes = "rejected_pushes" }
    }

    public var version: String
    public var uptimeSeconds: Int
    public var deviceId: String?
    public var pushToken: String?
    public var relay: RelayStatus
    public var counts: Counts
    /// Accounts whose pushes are denied unseen for now (absent from daemons before 0.2).
    public var mutedAccounts: [Account]?
    /// What the key that seals the account secrets at rest is bound to: "tpm2", "host key" or "key file" (absent
    /// from daemons before sealing).
    public var secretsSealedBy: String?
    /// Every push source's health, the relay's first (absent from daemons before push sources).
    public var pushSources: [PushSourceStatus]?
    /// How a non-root operator proves it is them to approve a verify approval: a `UserVerificationMethod` raw value
    /// (absent from daemons before polkit; treat that, and a value not known here, as "password").
    public var userVerification: String?

    /// `userVerification` as this client knows it: absent or unknown is `password`.
    public var userVerificationMethod: UserVerificationMethod {
        userVerification.flatMap(UserVerificationMethod.init(rawValue:)) ?? .password
    }

    public init(version: String, uptimeSeconds: Int, deviceId: String?, pushToken: String?, relay: RelayStatus, counts: Counts,
                mutedAccounts: [Account], secretsSealedBy: String, pushSources: [PushSourceStatus],
                userVerification: UserVerificationMethod) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.deviceId = deviceId
        self.pushToken = pushToken
        self.relay = relay
        self.counts = counts
        self.mutedAccounts = mutedAccounts
        self.secretsSealedBy = secretsSealedBy
        self.pushSources = pushSources
        self.userVerification = userVerification.rawValue
    }

    enum CodingKeys: String, CodingKey {
        case version, uptimeSeconds = "uptime_seconds", deviceId = "device_id", pushToken = "push_token", relay, counts
        case mutedAccounts = "muted_accounts", secretsSealedBy = "secrets_sealed_by", pushSources = "push_sources"
        case userVerification = "user_verification"
    }
}

/// How the daemon checks that a non-root operator approving a verify approval is the user (docs/control-api.md, "User
/// verification"). Root states it (`user_verified`) whatever this says, and a password sent is always checked with PAM.
public enum UserVerificationMethod: String, Sendable {
    /// Approve without a password: polkit's authentication agent asks the user (a desktop dialog, or pkttyagent in
    /// a terminal) while the approve request waits, up to `longestPolkitWait`.
    case polkit
    /// Send the login password (`password`), checked through PAM.
    case password

    /// The longest an approve waits for the user to answer polkit's dialog; a client's timeout for that request
    /// must be longer (by `answer_wait_seconds` and a margin).
    public static let longestPolkitWait: Duration = .seconds(300)
}

public struct EnrollRequest: Codable, Sendable {
    public var uri: String
    public var name: String?
    /// The Firebase app (pushagentd.toml's FCM settings) whose FCM token the provider gets; nil: the relay's token.
    public var fcmApp: String?
    public init(uri: String, name: String? = nil, fcmApp: String? = nil) {
        self.uri = uri
        self.name = name
        self.fcmApp = fcmApp
    }

    enum CodingKeys: String, CodingKey { case uri, name, fcmApp = "fcm_app" }
}

public struct AccountsResponse: Codable, Sendable {
    public var accounts: [Account]
    public init(accounts: [Account]) { self.accounts = accounts }
}

public struct CodeResponse: Codable, Sendable {
    public var accountId: String
    public var code: String
    public var secondsLeft: Int
    public init(accountId: String, code: String, secondsLeft: Int) {
        self.accountId = accountId
        self.code = code
        self.secondsLeft = secondsLeft
    }
    enum CodingKeys: String, CodingKey { case accountId = "account_id", code, secondsLeft = "seconds_left" }
}

public struct ApprovalsResponse: Codable, Sendable {
    public var approvals: [Approval]
    public init(approvals: [Approval]) { self.approvals = approvals }
}

public struct ApproveRequest: Codable, Sendable {
    public var number: String?
    /// The caller confirmed the user's presence (`kind == verify`; honoured from root only).
    public var userVerified: Bool?
    /// The operator's login password, checked through PAM (`kind == verify`; without it a non-root caller is asked
    /// through polkit where the daemon has it, `StatusResponse.userVerification`).
    public var password: String?
    public init(number: String? = nil, userVerified: Bool? = nil, password: String? = nil) {
        self.number = number
        self.userVerified = userVerified
        self.password = password
    }
    enum CodingKeys: String, CodingKey { case number, userVerified = "user_verified", password }
}

public struct DenyRequest: Codable, Sendable {
    public var reason: DenyReason?
    public init(reason: DenyReason? = nil) { self.reason = reason }
}

/// A push the agent refused, as history shows it.
public struct RejectedPush: Codable, Sendable, Equatable {
    public var reason: PushRejection.Reason
    public var message: String
    public var provider: Provider?
    public var relayMessageId: String?

    public init(reason: PushRejection.Reason, message: String, provider: Provider?, relayMessageId: String?) {
        self.reason = reason
        self.message = message
        self.provider = provider
        self.relayMessageId = relayMessageId
    }

    enum CodingKeys: String, CodingKey { case reason, message, provider, relayMessageId = "relay_message_id" }
}

public struct HistoryEntry: Codable, Sendable {
    public enum Kind: String, Codable, Sendable { case approval, rejectedPush = "rejected_push" }
    public var kind: Kind
    public var at: Date
    public var approval: Approval?
    public var rejectedPush: RejectedPush?

    enum CodingKeys: String, CodingKey { case kind, at, approval, rejectedPush = "rejected_push" }
}

extension HistoryEntry {
    /// A resolved approval, at when it was resolved.
    public init(_ approval: Approval) {
        self.init(kind: .approval, at: approval.resolvedAt ?? approval.requestedAt, approval: approval)
    }

    public init(_ rejectedPush: RejectedPush, at: Date) {
        self.init(kind: .rejectedPush, at: at, rejectedPush: rejectedPush)
    }
}

public struct HistoryResponse: Codable, Sendable {
    public var entries: [HistoryEntry]
    public init(entries: [HistoryEntry]) { self.entries = entries }
}

/// One line of the `GET /v1/events` NDJSON stream.
public struct ControlEvent: Codable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case approvalCreated = "approval.created", approvalUpdated = "approval.updated"
        case requestUpdated = "request.updated", relayState = "relay.state", accountChanged = "account.changed"
        case approvalBombing = "approval.bombing"
    }
    public var type: Kind
    public var at = Date()
    public var approval: Approval?
    public var account: Account?
    public var relay: RelayStatus?
    public var request: TwoFactorRequest?
    public var bombing: BombingAlert?
}

/// One per kind, so an event always carries what its type says it does.
extension ControlEvent {
    public static func approvalCreated(_ approval: Approval) -> Self { .init(type: .approvalCreated, approval: approval) }
    public static func approvalUpdated(_ approval: Approval) -> Self { .init(type: .approvalUpdated, approval: approval) }
    public static func requestUpdated(_ request: TwoFactorRequest) -> Self { .init(type: .requestUpdated, request: request) }
    public static func relayState(_ relay: RelayStatus) -> Self { .init(type: .relayState, relay: relay) }
    public static func accountChanged(_ account: Account) -> Self { .init(type: .accountChanged, account: account) }

    public static func approvalBombing(_ approval: Approval, _ alert: BombingAlert) -> Self {
        .init(type: .approvalBombing, approval: approval, bombing: alert)
    }
}

/// One push source's health in `GET /v1/status`: the relay's long-poll, privacyIDEA's polling, …
public struct PushSourceStatus: Codable, Sendable, Equatable {
    /// `relay`, `privacyidea-poll`, …
    public var name: String
    /// What it is doing: `connected`, `backoff`, `polling`, `idle`, …
    public var state: String
    /// What a person should know: the last error, what is polled.
    public var detail: String?
    /// When it last handed pushes to the agent.
    public var lastReceivedAt: Date?

    public init(name: String, state: String, detail: String? = nil, lastReceivedAt: Date? = nil) {
        self.name = name
        self.state = state
        self.detail = detail
        self.lastReceivedAt = lastReceivedAt
    }

    enum CodingKeys: String, CodingKey { case name, state, detail, lastReceivedAt = "last_received_at" }
}

/// `POST /v1/fcm/check`: the FCM registration as it is after registering (or reusing it), and the connection.
public struct FCMCheckResponse: Codable, Sendable, Equatable {
    public var app: String
    public var projectID: String
    public var senderID: String
    /// The token providers send to: give it to a test sender (the Firebase console's "Send test message").
    public var token: String
    public var device: String
    public var registeredAt: Date
    public var installationTokenExpiresAt: Date
    public var connection: PushSourceStatus

    public init(_ registration: FCMRegistration, connection: PushSourceStatus) {
        app = registration.app.name
        projectID = registration.app.projectID
        senderID = registration.app.senderID
        token = registration.token
        device = registration.device.mcsDeviceID
        registeredAt = registration.registeredAt
        installationTokenExpiresAt = registration.installation.authTokenExpiresAt
        self.connection = connection
    }

    enum CodingKeys: String, CodingKey {
        case app, projectID = "project_id", senderID = "sender_id", token, device, registeredAt = "registered_at"
        case installationTokenExpiresAt = "installation_token_expires_at", connection
    }
}
