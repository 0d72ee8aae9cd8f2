import ControlWire
import Foundation

/// Fans control events out to every `GET /v1/events` subscriber. A slow subscriber loses old events, never blocks the agent.
typealias EventBus = Broadcast<ControlEvent>

/// Fans events out to every subscriber of the moment.
actor Broadcast<Event: Sendable> {
    private var subscribers: [UUID: AsyncStream<Event>.Continuation] = [:]

    func subscribe() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return stream
    }

    func publish(_ event: Event) {
        for continuation in subscribers.values { continuation.yield(event) }
    }

    func finishAll() {
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
    }

    private func unsubscribe(_ id: UUID) { subscribers[id] = nil }
}
