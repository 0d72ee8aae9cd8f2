import Foundation

/// Which generation of the UnifiedPush D-Bus interfaces an app speaks: apps built on older KUnifiedPush call
/// Distributor1 and serve Connector1, newer ones use the a{sv} methods of version 2. Stored with a registration so
/// that the distributor later calls the app in the version it registered with.
public enum ConnectorVersion: Int, Sendable, Codable {
    case v1 = 1
    case v2 = 2
}

/// An app's Register call, already checked against the spec (a malformed one was refused on the bus and never
/// gets here).
public struct RegisterCall: Sendable {
    /// The app's well-known bus name: where its connector is called (and D-Bus-activated) later.
    public let service: String
    /// Chosen by the app, at most 100 bytes: identifies the registration in every later call, both ways.
    public let token: String
    /// What the app says the registration is for, cut to the spec's 100 bytes; nil when absent or empty.
    public let description: String?
    /// The app server's VAPID public key (87 characters of base64url, an uncompressed P-256 point), if it sent one.
    public let vapid: String?
    public let version: ConnectorVersion
    /// The caller's unique connection name (":1.42"): which connection asked, as opposed to the name it claims.
    public let sender: String

}

/// Why a registration failed, in the spec's words: the app decides from it whether to retry, wait for the network,
/// ask its user, or register again with a VAPID key.
public enum RegistrationFailure: String, Sendable {
    case internalError = "INTERNAL_ERROR"
    case network = "NETWORK"
    case actionRequired = "ACTION_REQUIRED"
    case vapidRequired = "VAPID_REQUIRED"
}

/// An app's Unregister call.
public struct UnregisterCall: Sendable {
    public let token: String
    public let version: ConnectorVersion
    public let sender: String

}

/// A call an app made to the distributor. The app waits for the answer on the bus, so it is given exactly once;
/// later answers are ignored, and a call dropped unanswered is answered for the distributor (REGISTRATION_FAILED
/// with INTERNAL_ERROR, or an error to an Unregister) rather than left to time out in the app.
public enum DistributorCall: Sendable {
    /// answer exactly once: nil = succeeded, else the failure (v1 gets "REGISTRATION_FAILED" and the reason string)
    case register(RegisterCall, answer: @Sendable (RegistrationFailure?) -> Void)
    case unregister(UnregisterCall, answer: @Sendable () -> Void)
}

/// What became of a call to an app's connector.
public enum ConnectorDelivery: Sendable, Equatable {
    /// The app answered the call (for a Connector2 Message: acknowledged it, echoing its id).
    case delivered
    /// The app is not running and cannot be started (org.freedesktop.DBus.Error.ServiceUnknown or NameHasNoOwner):
    /// most likely uninstalled, so its registration can go. The text is the bus daemon's.
    case appNotFound(String)
    /// Anything else (a timeout, an error reply, a lost connection): the app may be there, so try again later.
    case failed(String)
}

/// Connecting failed, or the bus refused a query.
public struct DistributorBusError: Error, CustomStringConvertible {
    public var description: String
    /// Another connection owns the distributor's name: a conflict for the user to resolve (stop the other
    /// distributor), not a missing session bus.
    public var nameTaken: Bool

    public init(_ description: String, nameTaken: Bool = false) {
        self.description = description
        self.nameTaken = nameTaken
    }
}
