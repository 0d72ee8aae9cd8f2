import ControlWire
import Foundation
import Logging
import NIOCore
import NIOSSL
import PushAgentCore
import PushAgentStore
import Synchronization
import SystemdSupport

/// Answers to the peer's pings: at most one a second. Google pings every few minutes; answering a flood ping for
/// ping costs CPU and memory without telling the peer anything more.
struct PingAnswers {
    static let interval: Duration = .seconds(1)
    private var last: ContinuousClock.Instant?

    mutating func mayAnswer(now: ContinuousClock.Instant = .now) -> Bool {
        if let last, now - last < Self.interval { return false }
        last = now
        return true
    }
}

/// Writes stanzas in order; the version byte goes before the first.
actor MCSWriter {
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var sentVersion = false

    init(outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.outbound = outbound
    }

    func send(_ message: MCSMessage) async throws {
        let frame = try MCSFraming.frame(message, withVersion: !sentVersion)
        sentVersion = true
        try await outbound.write(ByteBuffer(bytes: frame))
    }
}

/// Persistent ids acknowledged since the last login: repeated in the next login's `received_persistent_id`, in
/// case the selective ack was lost with the connection, and forgotten once a login has carried them.
final class AcknowledgedIDs: Sendable {
    private let ids = Mutex<[String]>([])
    private let carried = Mutex<[String]>([])

    /// The most recent ones; Chrome bounds the list the same way.
    static let limit = 200

    func add(_ new: [String]) { ids.withLock { $0 = Array(($0 + new).suffix(Self.limit)) } }

    /// The ids a login repeats, remembered as carried by it until its response confirms them.
    func carriedByLogin() -> [String] {
        let all = ids.withLock { $0 }
        carried.withLock { $0 = all }
        return all
    }

    func confirmedByLogin() {
        let sent = carried.withLock { $0 }
        ids.withLock { current in current.removeAll { sent.contains($0) } }
    }
}

/// Raised once, read from another task: why a connection was closed.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func raise() { value.store(true, ordering: .relaxed) }
    var isRaised: Bool { value.load(ordering: .relaxed) }
}

/// When MCS last sent a whole stanza, and whether the connection was given up for its silence.
final class Liveness: Sendable {
    private let limit: Duration
    private let state: Mutex<(last: ContinuousClock.Instant, dead: Bool)>

    init(limit: Duration) {
        self.limit = limit
        state = Mutex((.now, false))
    }

    func heard() { state.withLock { $0.last = .now } }

    /// True once the silence passed the limit (and from then on).
    func isDead() -> Bool {
        state.withLock { state in
            if ContinuousClock.now - state.last > limit { state.dead = true }
            return state.dead
        }
    }

    var declaredDead: Int? { state.withLock { $0.dead } ? Int(limit.components.seconds) : nil }
}
