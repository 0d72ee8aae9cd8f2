import Foundation
import PushAgentCore
import PushAgentStore
import ServiceLifecycle

/// Waits for a request this device made to change, woken by `request.updated` events rather than by polling.
struct RequestWatch: Sendable {
    let store: AgentStore
    let events: EventBus

    /// The request once `accept` holds for it, or as it stands when `timeout` passes (or the daemon stops).
    func wait(for idOrPrefix: String, timeout: Duration,
              until accept: @escaping @Sendable (TwoFactorRequest) -> Bool) async throws -> TwoFactorRequest {
        // Subscribed before reading, so an update between the read and the wait is not missed.
        let subscription = await events.subscribe()
        let current = try await store.request(matching: idOrPrefix).request
        if accept(current) || timeout <= .zero { return current }
        let id = current.id
        let changed = await withTaskGroup(of: TwoFactorRequest?.self) { group in
            group.addTask {
                for await event in subscription where event.type == .requestUpdated {
                    if let request = event.request, request.id == id, accept(request) { return request }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            // A waiting `pushctl wait` must not hold pushagentd's stop for the rest of its wait: it gets the request as it is.
            group.addTask {
                try? await gracefulShutdown()
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let changed { return changed }
        return try await store.request(matching: id).request
    }
}
