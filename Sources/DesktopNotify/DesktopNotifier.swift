import ControlWire
import Foundation
import PushAgentCore

/// Follows pushagentd's event stream and keeps one desktop notification per pending approval: shown when it
/// arrives, answered from its buttons, closed when it is resolved anywhere. Runs until cancelled, connecting
/// again to the daemon and to the session bus whenever either goes away.
public struct DesktopNotifier: Sendable {
    let client: any ApprovalDaemon
    let log: @Sendable (String) -> Void

    public init(client: any ApprovalDaemon, log: @escaping @Sendable (String) -> Void) {
        self.client = client
        self.log = log
    }

    public func run() async {
        while !Task.isCancelled {
            do {
                let bus = try await NotificationBus.connect()
                let capabilities = try await bus.capabilities()
                log("connected to the notification server (\(capabilities.contains("actions") ? "with" : "without") action buttons)")
                await serve(on: bus, shown: ShownNotifications(bus: bus, client: client, capabilities: capabilities, log: log))
                log("the session bus connection ended; connecting again")
            } catch {
                log("\(error)")
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
            await group.next()
            group.cancelAll()
            bus.stop()
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
                        reported = false
                        await shown.sync(pending: try await client.approvals(state: .pending))
                        continue
                    }
                    guard let approval = event.approval else { continue }
                    await shown.update(approval)
                }
            } catch {
                if !reported { log("pushagentd: \(error); trying again") }
                reported = true
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}

/// The notifications shown on one bus connection, by approval.
actor ShownNotifications {
    private struct Entry {
        var approval: Approval
        var notificationId: UInt32?
        var open: Bool
    }

    private let bus: NotificationBus
    private let client: any ApprovalDaemon
    private let actions: Bool
    private let markup: Bool
    private let log: @Sendable (String) -> Void
    private var entries: [String: Entry] = [:]

    init(bus: NotificationBus, client: any ApprovalDaemon, capabilities: Set<String>, log: @escaping @Sendable (String) -> Void) {
        self.bus = bus
        self.client = client
        actions = capabilities.contains("actions")
        markup = capabilities.contains("body-markup")
        self.log = log
    }

    func sync(pending: [Approval]) async {
        let ids = Set(pending.map(\.id))
        for approval in pending { await update(approval) }
        // Resolved while the stream was down: the final state is fetched, so the result is right.
        for id in entries.filter({ $0.value.open && !ids.contains($0.key) }).keys {
            if let final = try? await client.approval(id) { await update(final) }
        }
    }

    func update(_ approval: Approval) async {
        if approval.state == .pending {
            guard entries[approval.id] == nil else { return }
            entries[approval.id] = Entry(approval: approval, notificationId: nil, open: true)
            do {
                let id = try await bus.notify(ApprovalNotification.content(for: approval, actions: actions, markup: markup))
                entries[approval.id]?.notificationId = id
            } catch {
                log("cannot show approval \(approval.id): \(error)")
            }
            return
        }
        guard approval.state.isFinal, let entry = entries[approval.id], entry.open else { return }
        entries[approval.id]?.open = false
        if let id = entry.notificationId { try? await bus.close(id) }
        _ = try? await bus.notify(ApprovalNotification.result(of: approval, markup: markup))
    }

    func handle(_ signal: NotificationSignal) async {
        switch signal {
        case .closed(let id, _):
            // Dismissed by the user or closed by us: not shown again, and the approval stays answerable elsewhere.
            if let key = entries.first(where: { $0.value.notificationId == id })?.key { entries[key]?.notificationId = nil }
        case .actionInvoked(let id, let key):
            guard let entry = entries.values.first(where: { $0.notificationId == id }) else { return }
            guard let decision = ApprovalNotification.decision(forAction: key, of: entry.approval) else {
                log("ignored action '\(key)' that approval \(entry.approval.id) never offered")
                return
            }
            await answer(entry.approval, decision)
        }
    }

    private func answer(_ approval: Approval, _ decision: ApprovalNotification.Decision) async {
        do {
            let answered = try await client.answer(approval.id, decision)
            log("approval \(approval.id): \(answered.state.rawValue) from the notification")
            await update(answered)
        } catch {
            log("approval \(approval.id): \(error)")
            _ = try? await bus.notify(ApprovalNotification.refusal(of: approval, reason: "\(error)", markup: markup))
        }
    }
}
