import Foundation

/// Where Google's registration services are: each one configurable, so tests (pushsim's emulator) and corporate
/// networks can point them elsewhere.
public struct FCMEndpoints: Sendable, Equatable {
    public var checkin = "https://android.clients.google.com/checkin"
    public var gcmRegister = "https://android.clients.google.com/c2dm/register3"
    public var installations = "https://firebaseinstallations.googleapis.com/v1/"
    public var registrations = "https://fcmregistrations.googleapis.com/v1/"
    /// The push endpoint FCM expects in a web registration; only its form matters, nothing is sent there.
    public var webPushEndpoint = "https://fcm.googleapis.com/fcm/send/"
    public var mcsHost = "mtalk.google.com"
    public var mcsPort = 5228
    /// Where 5228 is blocked, Chrome falls back to 443 on the same host.
    public var mcsFallbackPort = 443

    public init() {}
}
