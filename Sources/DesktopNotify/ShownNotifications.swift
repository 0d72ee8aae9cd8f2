import Foundation
import PushAgentCore

/// The notifications shown on one bus connection, by approval: each pending approval stays on screen until it is
/// resolved or the user dismisses it, whatever the notification server does (restarts, expires it, merges it).
actor ShownNotifications {
    private struct Entry {
        var approval: Approval
        /// Where it is on screen now; nil while it is not (not shown yet, Notify failed, the server went away).
        var shown: ShownNotification?
        /// Pending, so the notifier keeps it on screen.
        var open = true
        /// Closed by the user, or by the server more than `maximumReshows` times: not shown again (the approval stays
        /// answerable from pushctl).
        var dismissed = false
        /// A Notify is in flight for it.
        var showing = false
        /// Times the server closed it without the user (expired, replaced): shown again up to `maximumReshows`.
        var reshows = 0
        /// Why it could not be shown, as last logged (logged again only when it changes).
        var failure: String?
    }

    /// A server that keeps closing a resident notification at once would otherwise make a loop of Notify calls.
    static let maximumReshows = 5

    private let bus: NotificationBus
    private let client: any ApprovalDaemon
    private let log: @Sendable (String) -> Void
    private var actions = false
    private var markup = false
    /// The daemon verifies the user through polkit: a verify approval gets an Approve button.
    private var polkit = false
    private var server: String?
    private var entries: [String: Entry] = [:]

    init(bus: NotificationBus, client: any ApprovalDaemon, log: @escaping @Sendable (String) -> Void) {
        self.bus = bus
        self.client = client
        self.log = log
        server = bus.initialServer
    }

    /// Reads what the server can do (starting it, where the bus can). Without a server, nothing is shown until one
    /// takes the name (`serverChanged`).
    func start() async {
        await readCapabilities()
    }

    private func readCapabilities() async {
        do {
            let capabilities = try await bus.capabilities()
            actions = capabilities.contains("actions")
            markup = capabilities.contains("body-markup")
            log("connected to the notification server (\(actions ? "with" : "without") action buttons)")
        } catch {
            log("no notification server yet (\(error)); pending approvals are shown once one starts")
        }
    }

    func sync(pending: [Approval], polkit: Bool) async {
        self.polkit = polkit
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
            entries[approval.id] = Entry(approval: approval)
            await show(approval.id)
            return
        }
        guard approval.state.isFinal, let entry = entries[approval.id], entry.open else { return }
        entries[approval.id]?.open = false
        entries[approval.id]?.approval = approval
        if let shown = entry.shown { await close(shown) }
        guard let result = await result(of: approval) else { return }
        _ = try? await bus.notify(result)
    }

    /// Shows every open approval that is not on screen: after a failed Notify, or on a new server.
    func showMissing() async {
        for (id, entry) in entries where entry.open && !entry.dismissed && entry.shown == nil { await show(id) }
    }

    func handle(_ signal: NotificationSignal) async {
        switch signal {
        case .serverChanged(let server):
            await serverChanged(to: server)
        case .closed(let id, let reason):
            guard let key = approvalId(shownAs: id) else { return }
            entries[key]?.shown = nil
            guard entries[key]?.open == true else { return }
            if reason == 2 {
                entries[key]?.dismissed = true
                return
            }
            // Expired, merged with a look-alike or closed by someone else: the sign-in still waits for an answer.
            let reshows = (entries[key]?.reshows ?? 0) + 1
            entries[key]?.reshows = reshows
            guard reshows <= Self.maximumReshows else {
                entries[key]?.dismissed = true
                log("the notification server keeps closing approval \(key)'s notification (reason \(reason)); answer it with pushctl approve \(key) or pushctl deny \(key)")
                return
            }
            await show(key)
        case .actionInvoked(let id, let key):
            guard let entry = approvalId(shownAs: id).flatMap({ entries[$0] }) else { return }
            guard let decision = ApprovalNotification.decision(forAction: key, of: entry.approval, polkit: polkit) else {
                log("ignored action '\(key)' that approval \(entry.approval.id) never offered")
                return
            }
            // Not awaited: an answer takes a round trip to the provider, and the signals behind it (another server
            // took the name, say) must not wait for it.
            Task { await answer(entry.approval, decision) }
        }
    }

    /// The approval whose notification has `id` on the current server.
    private func approvalId(shownAs id: UInt32) -> String? {
        entries.first { $0.value.shown?.id == id && $0.value.shown?.server == server }?.key
    }

    /// Closes what is still on screen, so that no button is left that nothing answers (the notifier is stopping).
    func closeAll() async -> Int {
        var closed = 0
        for shown in entries.values.filter({ $0.open }).compactMap(\.shown) where await close(shown) { closed += 1 }
        return closed
    }

    /// Ids belong to the server that gave them: another server (or none) means none of ours is on screen any more.
    private func serverChanged(to newServer: String?) async {
        server = newServer
        for id in entries.keys {
            entries[id]?.reshows = 0
            if entries[id]?.shown?.server != newServer { entries[id]?.shown = nil }
        }
        guard newServer != nil else {
            log("the notification server went away; pending approvals are shown again when one starts")
            return
        }
        await readCapabilities()
        await showMissing()
    }

    private func show(_ id: String) async {
        guard let entry = entries[id], entry.open, !entry.dismissed, entry.shown == nil, !entry.showing else { return }
        entries[id]?.showing = true
        defer { entries[id]?.showing = false }
        do {
            let shown = try await bus.notify(ApprovalNotification.content(for: entry.approval, actions: actions, markup: markup,
                                                                               polkit: polkit))
            // The first answer from an activated server can come before the bus says it owns the name.
            if server == nil { server = shown.server }
            // The server changed while it was being shown: that one's id is no use; shown again on the next round.
            guard shown.server == server else { return }
            entries[id]?.shown = shown
            entries[id]?.failure = nil
            // Resolved while it was being shown.
            if entries[id]?.open == false { await close(shown) }
        } catch {
            if entries[id]?.failure != "\(error)" {
                log("cannot show approval \(id): \(error); trying again")
                entries[id]?.failure = "\(error)"
            }
        }
    }

    @discardableResult
    private func close(_ shown: ShownNotification) async -> Bool {
        (try? await bus.close(shown)) != nil
    }

    /// What to say once an approval is resolved, with the account's mute after a fraud report.
    private func result(of approval: Approval) async -> DesktopNotification? {
        var mutedUntil: Date?
        if approval.resolution?.reason == .fraud {
            mutedUntil = (try? await client.accounts())?.first { $0.id == approval.accountId }?.mutedUntil
        }
        return ApprovalNotification.result(of: approval, mutedUntil: mutedUntil, markup: markup)
    }

    private func answer(_ approval: Approval, _ decision: ApprovalNotification.Decision) async {
        do {
            let answered = try await client.answer(approval.id, decision)
            log("approval \(approval.id): \(answered.state.rawValue) from the notification")
            await update(answered)
        } catch {
            log("approval \(approval.id): \(error)")
            _ = try? await bus.notify(ApprovalNotification.refusal(of: approval, reason: "\(error)", markup: markup))
            // A server that does not keep notifications after an action closed it as if the user had: the sign-in
            // still waits, so it is shown again.
            entries[approval.id]?.dismissed = false
            await show(approval.id)
        }
    }
}
