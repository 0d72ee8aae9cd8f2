import Foundation
import PushAgentCore

public enum StoreError: Error, Equatable, CustomStringConvertible {
    case notFound(String)
    case ambiguous(String)
    case conflict(String)
    case duplicateAccount(String)
    case corrupt(String)
    /// A value the store could not read back (a time outside years 1970–9999): refused before it is written.
    case unstorable(String)

    public var description: String {
        switch self {
        case .notFound(let m), .ambiguous(let m), .conflict(let m), .duplicateAccount(let m), .corrupt(let m),
             .unstorable(let m): m
        }
    }
}

/// The device's registration with the relay.
public struct DeviceIdentity: Sendable, Equatable {
    public var relayURL: String
    public var deviceId: String
    public var token: String
    public var secret: String
    public var registeredAt: Date

    public init(relayURL: String, deviceId: String, token: String, secret: String, registeredAt: Date) {
        self.relayURL = relayURL
        self.deviceId = deviceId
        self.token = token
        self.secret = secret
        self.registeredAt = registeredAt
    }
}

/// An account with what the agent needs to verify and answer for it.
public struct StoredAccount: Sendable {
    public var account: Account
    /// Provider-specific credentials (JSON), e.g. `ForgeRockCredentials`.
    public var credentials: Data
    public var totp: TOTPParameters?
}

/// An approval with what its responder needs.
public struct StoredApproval: Sendable {
    public var approval: Approval
    public var answerContext: Data

    /// The same approval moved on (its state, its resolution), with what answering it needs.
    public func with(_ approval: Approval) -> StoredApproval {
        StoredApproval(approval: approval, answerContext: answerContext)
    }
}

/// Where a message came from. Relay messages are keyed by the relay's id and advance the relay cursor; messages a
/// provider returned to a poll (privacyIDEA) are keyed by the provider's own id, and FCM's by Google's persistent id;
/// neither moves the cursor.
public enum MessageSource: Sendable, Equatable {
    case relay(id: String, seq: Int64)
    /// `key` names the message within its provider, e.g. `privacyidea:<nonce>`.
    case poll(key: String)
    /// A data message from Google's MCS, by its persistent id (unique per registration, which Google names).
    case fcm(persistentID: String)

    /// The `processed_message` key: relay ids as they are, polled messages under `poll:` (relay ids never have it).
    var processedKey: String {
        switch self {
        case .relay(let id, _): id
        case .poll(let key): "poll:" + key
        // Stored as it was when FCM messages were recorded as polled, so that one committed before an upgrade is still
        // known after it.
        case .fcm(let persistentID): "poll:fcm:" + persistentID
        }
    }

    /// Polled messages have no relay sequence number: 0.
    var seq: Int64 {
        switch self {
        case .relay(_, let seq): seq
        case .poll, .fcm: 0
        }
    }
}

/// A verified message, ready to be committed with others (`AgentStore.commitMessages`).
public struct MessageCommit: Sendable {
    public var source: MessageSource
    public var result: Result<PushEffect, PushRejection>
    public var provider: Provider?

    public init(source: MessageSource, result: Result<PushEffect, PushRejection>, provider: Provider?) {
        self.source = source
        self.result = result
        self.provider = provider
    }
}

/// What committing one message did.
public enum MessageOutcome: Sendable {
    case created(Approval)
    /// The message id was already committed, or the dialect's replay key was seen before.
    case duplicate(existingApprovalId: String?)
    /// A status push moved a request this device made.
    case requestUpdated(TwoFactorRequest)
    case rejected(PushRejection)
    /// Verified, but denied unseen (over the account's push budget, or the account is muted): the answer is still
    /// to be sent (state `denying`); the rejection is in history.
    case autoDenied(StoredApproval, PushRejection)
}

/// Who made a control-API write, from SO_PEERCRED.
public struct Peer: Sendable, Equatable {
    public var uid: UInt32
    public var pid: Int32
    public var command: String?

    public init(uid: UInt32, pid: Int32, command: String?) {
        self.uid = uid
        self.pid = pid
        self.command = command
    }
}
