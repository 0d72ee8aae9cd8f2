import CNotifyBus
import Foundation
import SessionBusThread
import Synchronization

/// The user's session bus, as a notification client. sd-bus objects are not thread-safe, so one thread owns the
/// connection: calls are queued to it, and the server's signals come out of `signals`, which ends when the
/// connection is lost (the bus restarted): connect again then.
public final class NotificationBus: Sendable {
    public static let appName = "pushagent"

    public let signals: AsyncStream<NotificationSignal>
    private let signalSink: SignalSink
    private let queue: BusJobQueue
    private let initialOwner = Mutex<String?>(nil)

    private init(queue: BusJobQueue) {
        self.queue = queue
        let (stream, continuation) = AsyncStream.makeStream(of: NotificationSignal.self)
        signals = stream
        signalSink = SignalSink(continuation)
    }

    deinit { stop() }

    /// Connects to `$DBUS_SESSION_BUS_ADDRESS` (else `$XDG_RUNTIME_DIR/bus`).
    public static func connect() async throws -> NotificationBus {
        // A call after stop() fails at once, as on a closed connection.
        guard let queue = BusJobQueue(afterStop: .refuse) else {
            throw NotificationBusError("eventfd: \(String(cString: strerror(errno)))")
        }
        let bus = NotificationBus(queue: queue)
        try await BusJobQueue.startThread(named: "session bus") { bus.run($0) }
        return bus
    }

    /// Shows `notification`; the answer names the server that showed it, whose id it is.
    @discardableResult
    public func notify(_ notification: DesktopNotification, replacing id: UInt32 = 0) async throws -> ShownNotification {
        try await perform { bus, error in
            var newId: UInt32 = 0
            var server: UnsafeMutablePointer<CChar>?
            let flat = notification.actions.flatMap { [$0.key, $0.label] }
            let status = flat.withCStrings { actions in
                notify_bus_notify(bus, Self.appName, id, "dialog-password", notification.summary, notification.body,
                                  actions, notification.actions.count, notification.urgency.rawValue,
                                  notification.resident ? 1 : 0, notification.transient ? 1 : 0,
                                  notification.expireTimeoutMs, &newId, &server, error, 512)
            }
            defer { free(server) }
            return (status, ShownNotification(id: newId, server: server.map { String(cString: $0) } ?? ""))
        }
    }

    /// Closes a notification of the server that showed it; if that server has gone, there is nothing to close.
    public func close(_ shown: ShownNotification) async throws {
        try await perform { bus, error in (notify_bus_close_notification(bus, shown.server, shown.id, error, 512), ()) }
    }

    /// The server that owns the notifications' name when connected (nil: none yet); later changes come as
    /// `serverChanged` signals.
    public var initialServer: String? { initialOwner.withLock { $0 } }

    public func capabilities() async throws -> Set<String> {
        try await perform { bus, error in
            var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
            let status = notify_bus_capabilities(bus, &list, error, 512)
            var names: Set<String> = []
            if let list {
                var index = 0
                while let name = list[index] {
                    names.insert(String(cString: name))
                    free(name)
                    index += 1
                }
                free(list)
            }
            return (status, names)
        }
    }

    /// Ends the connection; `signals` finishes.
    public func stop() { queue.requestStop() }

    private func perform<T: Sendable>(_ call: @escaping @Sendable (OpaquePointer, UnsafeMutablePointer<CChar>) -> (Int32, T))
        async throws -> T {
        try await queue.perform(call, subject: "the notification server") { NotificationBusError($0) }
    }

    private func run(_ opened: CheckedContinuation<Void, any Error>) {
        var bus: OpaquePointer?
        let context = Unmanaged.passRetained(signalSink).toOpaque()
        defer { Unmanaged<SignalSink>.fromOpaque(context).release() }
        let status = notify_bus_open(&bus, { context, kind, id, text, reason in
            guard let context else { return }
            let sink = Unmanaged<SignalSink>.fromOpaque(context).takeUnretainedValue()
            let text = text.map { String(cString: $0) }
            let signal: NotificationSignal = switch kind {
            case Int32(NOTIFY_BUS_ACTION_INVOKED): .actionInvoked(id: id, action: text ?? "")
            case Int32(NOTIFY_BUS_SERVER_CHANGED): .serverChanged(server: text)
            default: .closed(id: id, reason: reason)
            }
            sink.deliver(signal)
        }, context)
        guard status >= 0, let bus else {
            queue.close { _ in }
            signalSink.finish()
            let hint = "is DBUS_SESSION_BUS_ADDRESS set? (a desktop session sets it; outside one there is nothing to notify)"
            opened.resume(throwing: NotificationBusError("cannot connect to the session bus: \(String(cString: strerror(-status))); \(hint)"))
            return
        }
        initialOwner.withLock { $0 = notify_bus_server(bus).map { String(cString: $0) } }
        opened.resume()
        queue.serve(bus, connection: notify_bus_connection(bus))
        queue.close { abandoned in
            // Jobs queued while the connection went away fail like calls on a closed bus.
            for job in abandoned { job(bus) }
            notify_bus_close(bus)
        }
        signalSink.finish()
    }
}

/// Where the C callback hands signals to Swift.
private final class SignalSink: Sendable {
    private let continuation: AsyncStream<NotificationSignal>.Continuation
    init(_ continuation: AsyncStream<NotificationSignal>.Continuation) { self.continuation = continuation }
    func deliver(_ signal: NotificationSignal) { continuation.yield(signal) }
    func finish() { continuation.finish() }
}

extension Array where Element == String {
    /// The strings as a C array of C strings, valid inside `body`.
    func withCStrings<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress ?? UnsafePointer(bitPattern: 1)!) }
    }
}
