/// One notification as the freedesktop Notifications spec has it (Notify's arguments).
public struct DesktopNotification: Sendable, Equatable {
    public struct Action: Sendable, Equatable {
        public var key: String
        public var label: String
        public init(_ key: String, _ label: String) {
            self.key = key
            self.label = label
        }
    }

    public enum Urgency: UInt8, Sendable { case low = 0, normal = 1, critical = 2 }

    public var summary: String
    public var body: String
    public var actions: [Action] = []
    public var urgency: Urgency = .normal
    /// Stays in the server after an action is invoked, where the server supports it (`resident`).
    public var resident = false
    /// Not kept in the server's history (`transient`): results shown briefly.
    public var transient = false
    /// -1: the server's default, 0: until closed.
    public var expireTimeoutMs: Int32 = -1
}

/// What the notification server tells us: an action button was pressed, or a notification went away; and what the
/// bus tells us: another server took over the notifications' name, or none holds it now (`server` nil).
public enum NotificationSignal: Sendable, Equatable {
    case actionInvoked(id: UInt32, action: String)
    /// `reason`: 1 expired, 2 dismissed by the user, 3 closed by CloseNotification, 4 other.
    case closed(id: UInt32, reason: UInt32)
    case serverChanged(server: String?)
}

/// A notification on screen: its id is only meaningful to the server (a bus connection's unique name) that gave it.
public struct ShownNotification: Sendable, Equatable {
    public var id: UInt32
    public var server: String
}

public struct NotificationBusError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
