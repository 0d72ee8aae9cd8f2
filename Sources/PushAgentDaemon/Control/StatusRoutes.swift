import ControlWire
import Foundation
import Hummingbird
import PushAgentStore

/// `GET /v1/status` and `GET /v1/events`: how the daemon is doing, and what happens as it happens.
struct StatusRoutes: ControlRouteCollection {
    let store: AgentStore
    let events: EventBus
    let relayState: RelayStateBox
    let pushSources: PushSources
    let polkit: PolkitAuthority
    let startedAt: Date

    func addRoutes(to v1: RouterGroup<PeerContext>) {
        v1.get("status") { _, _ in try JSONResponse.ok(try await status()) }
        v1.get("events") { _, _ in eventStream() }
    }

    private func status() async throws -> StatusResponse {
        let device = try await store.deviceIdentity()
        let counts = try await store.counts()
        return StatusResponse(
            version: PushAgentVersion.string, uptimeSeconds: Int(Date().timeIntervalSince(startedAt)),
            deviceId: device?.deviceId, pushToken: device?.token, relay: relayState.current,
            counts: .init(accounts: counts.accounts, pending: counts.pending, rejectedPushes: counts.rejected),
            mutedAccounts: try await store.accounts().filter { $0.isMuted(at: Date()) },
            secretsSealedBy: store.secretsSealedBy.rawValue, pushSources: pushSources.health,
            userVerification: await polkit.isAvailable() ? .polkit : .password)
    }

    /// NDJSON, one event per line, until the client goes away or the daemon stops. The first line is the relay's
    /// current state, so a subscriber knows it is live (nothing published after that line is missed).
    private func eventStream() -> Response {
        let events = self.events
        let relayState = self.relayState
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: ResponseBody { writer in
            let encoder = ControlJSON.encoder()
            let subscription = await events.subscribe()
            var line = try encoder.encode(ControlEvent.relayState(relayState.current))
            line.append(0x0A)
            try await writer.write(ByteBuffer(bytes: line))
            for await event in subscription {
                var line = try encoder.encode(event)
                line.append(0x0A)
                try await writer.write(ByteBuffer(bytes: line))
            }
            try await writer.finish(nil)
        })
    }
}
