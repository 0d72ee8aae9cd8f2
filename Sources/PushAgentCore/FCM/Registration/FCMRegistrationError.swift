import Foundation

/// Why a registration step failed, naming the step so a user knows which of Google's services refused.
public enum FCMRegistrationError: Error, Equatable, CustomStringConvertible {
    public enum Step: String, Sendable {
        case checkin = "GCM check-in"
        case gcmRegister = "GCM registration"
        case installation = "Firebase Installations"
        case fcmRegister = "FCM registration"
    }

    case malformedReply(step: Step, String)
    /// The service answered with an error of its own (GCM's `Error=…`, Google's JSON error).
    case refused(step: Step, String)

    public var description: String {
        switch self {
        case .malformedReply(let step, let why): "\(step.rawValue): unexpected reply: \(why)"
        case .refused(let step, let why): "\(step.rawValue) refused: \(why)"
        }
    }
}
