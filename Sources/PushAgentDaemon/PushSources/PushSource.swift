import ControlWire
import ServiceLifecycle

/// Where pushes come from: the relay's long-poll, a provider's own server (privacyIDEA's polling), and whatever
/// comes next. Each hands what it receives to ingest in batches and acknowledges upstream only what ingest committed,
/// so a crash between receipt and commit delivers the push again and loses nothing.
protocol PushSource: Sendable {
    /// For logs and `pushctl status`.
    var name: String { get }

    /// Receives until cancelled (the daemon's graceful shutdown cancels it).
    func run(into ingest: PushIngest) async throws

    /// Fetches what waits now (`pushctl refresh`); nil from a source that is always listening.
    func refresh(into ingest: PushIngest) async throws -> RefreshResponse?

    /// How it is doing, for `pushctl status`.
    func health() -> PushSourceStatus
}

extension PushSource {
    func refresh(into ingest: PushIngest) async throws -> RefreshResponse? { nil }
}

/// Runs one push source in the daemon's service group.
struct PushSourceService: Service {
    let source: any PushSource
    let ingest: PushIngest

    func run() async throws {
        try await cancelWhenGracefulShutdown { try await source.run(into: ingest) }
    }
}

/// Every push source of the daemon: the relay's, then the providers' own.
struct PushSources: Sendable {
    let all: [any PushSource]

    /// `pushctl refresh`: every source that can fetch on demand does, and their answers add up.
    func refresh(into ingest: PushIngest) async throws -> RefreshResponse {
        var total = RefreshResponse()
        for source in all {
            if let response = try await source.refresh(into: ingest) { total.add(response) }
        }
        return total
    }

    var health: [PushSourceStatus] { all.map { $0.health() } }
}
