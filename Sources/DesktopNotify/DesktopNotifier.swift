import ControlWire
import Foundation
import PushAgentCore

/// Follows pushagentd's event stream and keeps one desktop notification per pending approval: shown when it
/// arrives, answered from its buttons, closed when it is resolved anywhere. Runs until cancelled, connecting
/// again to the daemon and to the session bus whenever either goes away.
public struct DesktopNotifier: Sendable {
    let client: any ApprovalDaemon
    let waitForBus: Bool
    let log: @Sendable (String) -> Void

    /// `waitForBus`: keep trying when there is no session bus at all (a unit started before the session's bus);
    /// false: give up at once (a command typed outside a desktop session, where waiting would never end).
    public init(client: any ApprovalDaemon, waitForBus: Bool, log: @escaping @Sendable (String) -> Void) {
        self.client = client
        self.waitForBus = waitForBus
        self.log = log
    }

    /// Runs until cancelled; then closes what it showed. Throws only `NoSessionBus`, when not told to wait.
    public func run() async throws {
        var connected = false
        var lastFailure: String?
        while !Task.isCancelled {
            do {
                let bus = try await NotificationBus.connect()
                connected = true
                lastFailure = nil
                let shown = ShownNotifications(bus: bus, client: client, log: log)
                await shown.start()
                await serve(on: bus, shown: shown)
                if Task.isCancelled {
                    let closed = await shown.closeAll()
                    log("stopped; closed \(closed) notification\(closed == 1 ? "" : "s") (their approvals stay pending)")
                    bus.stop()
                    return
                }
                bus.stop()
                log("the session bus connection ended; connecting again")
            } catch {
                guard connected || waitForBus else { throw NoSessionBus(reason: "\(error)") }
                // Tried every 2 s, said once until it changes: the journal is not for a heartbeat.
                if lastFailure != "\(error)" { log("\(error); trying again every 2 s") }
                lastFailure = "\(error)"
            }
            try? await Task.sleep(for: .seconds(2))
        }
    }

    /// Until the bus connection ends: the daemon's events in, the server's signals out.
    private func serve(on bus: NotificationBus, shown: ShownNotifications) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await followDaemon(shown) }
            group.addTask {
                for await signal in bus.signals { await shown.handle(signal) }
            }
            // A Notify that failed (the server was busy or starting) is tried again.
            group.addTask {
                while (try? await Task.sleep(for: .seconds(5))) != nil { await shown.showMissing() }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// The event stream, resumed after the daemon goes away: on every (re)connection the pending approvals are
    /// listed, so one that arrived meanwhile is shown, and one already shown is not shown again.
    private func followDaemon(_ shown: ShownNotifications) async {
        var reported = false
        while !Task.isCancelled {
            do {
                let events = try await client.events()
                // The stream's first line says it is live: listing after it misses nothing published since.
                var live = false
                for try await event in events {
                    if !live {
                        live = true
                        let pending = try await client.approvals(state: .pending)
                        let polkit = try await client.status().userVerificationMethod == .polkit
                        if reported { log("pushagentd: reconnected; \(pending.count) approval\(pending.count == 1 ? "" : "s") pending") }
                        reported = false
                        await shown.sync(pending: pending, polkit: polkit)
                        continue
                    }
                    guard let approval = event.approval else { continue }
                    await shown.update(approval)
                }
                throw DaemonStreamEnded()
            } catch {
                if !reported, !Task.isCancelled { log("pushagentd: \(error); trying again") }
                reported = true
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}

/// There is no session bus to show notifications on (a terminal outside a desktop session).
public struct NoSessionBus: Error, CustomStringConvertible {
    public let reason: String
    public var description: String {
        "\(reason)\nnothing to show notifications on: run pushctl notify inside the desktop session (its terminal, or the user unit pushagent-notify.service), or pass --wait to keep trying until a session bus appears"
    }
}

private struct DaemonStreamEnded: Error, CustomStringConvertible {
    var description: String { "its event stream ended (stopped or restarting)" }
}
