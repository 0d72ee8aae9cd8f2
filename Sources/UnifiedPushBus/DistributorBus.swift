import CUnifiedPushBus
import Foundation
import SessionBusThread

/// pushagent as a UnifiedPush distributor on the user's session bus (the D-Bus spec DBUS_0.3.0): it owns
/// `org.unifiedpush.Distributor.<name>`, hands the apps' Register/Unregister calls out as `calls`, and calls the
/// apps' connectors. sd-bus objects are not thread-safe, so one thread owns the connection and everything else is
/// queued to it; registering answers later, because it needs a round trip to pushagentd.
public final class DistributorBus: Sendable {
    public static let defaultName = "org.unifiedpush.Distributor.pushagent"
    /// How long newEndpoint and unregistered wait for the app: long enough for the bus daemon to start an app that
    /// is not running (D-Bus activation of a desktop program).
    public static let connectorCallTimeout: Duration = .seconds(30)
    /// How many calls wait in `calls` before more are turned away.
    public static let callBacklog = 256

    /// The apps' calls, in arrival order. Finishes when the connection is lost (the session bus went away: connect
    /// again) or stop() is called.
    public let calls: AsyncStream<DistributorCall>
    let queue: BusJobQueue
    let inbox: CallInbox

    private init(queue: BusJobQueue) {
        self.queue = queue
        // Bounded: calls past the backlog are answered at once (REGISTRATION_FAILED, INTERNAL_ERROR: try again later)
        // instead of piling up kept messages while the distributor is stuck.
        let (stream, continuation) = AsyncStream.makeStream(of: DistributorCall.self,
                                                            bufferingPolicy: .bufferingOldest(Self.callBacklog))
        calls = stream
        inbox = CallInbox(continuation, queue: queue)
    }

    /// Connects to the session bus at `address` (nil: the user's, from `$DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus`; tests give their private bus) and takes `name`, which must be free: two distributors
    /// answering under one name would split the apps' registrations between them.
    public static func connect(name: String = defaultName, address: String? = nil) async throws -> DistributorBus {
        if let problem = CallValidation.wellKnownNameProblem(name) {
            throw DistributorBusError("\(name) is not a valid bus name: \(problem)")
        }
        // A reply given just after stop() still goes out.
        guard let queue = BusJobQueue(afterStop: .runBeforeClosing) else {
            throw DistributorBusError("eventfd: \(String(cString: strerror(errno)))")
        }
        let bus = DistributorBus(queue: queue)
        try await BusJobQueue.startThread(named: "unifiedpush bus") { opened in
            bus.run(name: name, address: address, opened: opened)
        }
        return bus
    }

    /// Releases the name and closes the connection; `calls` finishes, connector calls under way end as failed, and
    /// answers given before this still go out. Until then the connection's thread keeps the bus alive, so call it
    /// when done.
    public func stop() { queue.requestStop() }

    private func run(name: String, address: String?, opened: CheckedContinuation<Void, any Error>) {
        let context = Unmanaged.passRetained(inbox).toOpaque()
        defer { Unmanaged<CallInbox>.fromOpaque(context).release() }
        var bus: OpaquePointer?
        var error = [CChar](repeating: 0, count: 512)
        let status = up_bus_open(&bus, address, name, InboxCallbacks.onCall, InboxCallbacks.onReply, context, &error,
                                 error.count)
        guard status >= 0, let bus else {
            queue.close { _ in }
            inbox.finish()
            opened.resume(throwing: Self.openError(status, detail: error.nulTerminatedText, name: name, address: address))
            return
        }
        opened.resume()
        queue.serve(bus, connection: up_bus_connection(bus))
        queue.close { left in
            for job in left { job(bus) }
            inbox.deliveries.failAll("the session bus connection was closed before the app answered")
            up_bus_close(bus)
        }
        inbox.finish()
    }

    private static func openError(_ status: Int32, detail: String, name: String, address: String?) -> DistributorBusError {
        if status == -EEXIST {
            return DistributorBusError("another UnifiedPush distributor owns \(name) (\(detail)) on the session bus: stop it, "
                                       + "or give this one another name", nameTaken: true)
        }
        let bus = address ?? ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] ?? "$XDG_RUNTIME_DIR/bus"
        return DistributorBusError("cannot serve \(name) on the session bus \(bus): \(detail)"
                                   + (address == nil ? "; is DBUS_SESSION_BUS_ADDRESS set? (a desktop session sets it)" : ""))
    }

    /// Runs `call` on the bus thread with the connection and a 512-byte buffer for the error text.
    func perform<T: Sendable>(_ call: @escaping @Sendable (OpaquePointer, UnsafeMutablePointer<CChar>) -> (Int32, T))
        async throws -> T {
        try await queue.perform(call, subject: "the session bus") { DistributorBusError($0) }
    }
}

extension [CChar] {
    /// The text the C shim wrote into this buffer, up to its NUL.
    var nulTerminatedText: String {
        String(decoding: prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
