import ControlWire
import Foundation
import Logging
import NIOCore
import NIOSSL
import PushAgentCore
import PushAgentStore
import Synchronization
import SystemdSupport

enum FCMSourceError: Error, CustomStringConvertible {
    case misconfigured(String)
    case closedByServer
    case dead(seconds: Int)
    /// The machine woke from suspend: the connection was closed to be made again.
    case resumed

    var description: String {
        switch self {
        case .misconfigured(let problem): problem
        case .closedByServer: "MCS closed the connection"
        case .dead(let seconds): "no whole stanza from MCS in \(seconds) s (not even a heartbeat): the connection is dead"
        case .resumed: "the machine woke from suspend"
        }
    }
}

/// MCS answered the login with an error. Only an authentication failure says the registration is no good (Google
/// forgot it); any other code (503: busy) is a reason to try the same registration again later.
struct LoginRefusal: Error, CustomStringConvertible {
    let code: Int32
    let message: String

    var isAuthentication: Bool { code == 401 || code == 403 }

    var description: String { "MCS refused the login (\(code) \(DisplayText.sanitized(String(message.prefix(200)))))" }
}
