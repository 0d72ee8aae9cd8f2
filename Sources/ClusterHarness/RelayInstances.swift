import CurlHTTP
import Foundation
import Synchronization

/// Several pushrelay processes on one PostgreSQL database, each on its own loopback port, with the cluster's
/// sender key; one can be killed and started again on its port.
public final class RelayInstances: Sendable {
    /// `127.0.0.1:PORT` of each instance, fixed for its life (a restart takes the same port).
    public let addresses: [String]
    private let database: String
    private let passwordFile: String
    private let processes: Mutex<[ManagedProcess?]>

    public init(count: Int, postgres: PostgresServer, database: String? = nil) async throws {
        self.database = database ?? postgres.url
        passwordFile = postgres.passwordFile
        addresses = try (0..<count).map { _ in "127.0.0.1:\(try Cluster.freePort())" }
        processes = Mutex(Array(repeating: nil, count: count))
        // One after the other: each start migrates or finds the schema current (simultaneous starts are tested apart).
        for index in 0..<count { try await start(index) }
    }

    public var urls: [String] { addresses.map { "http://\($0)" } }

    /// Starts instance `index` (again) and waits for its ready line.
    public func start(_ index: Int) async throws {
        let process = try ManagedProcess(name: "pushrelay-\(index)", executable: Binaries.path("pushrelay"), arguments: [
            "--listen", addresses[index], "--database", database, "--database-password-file", passwordFile,
            "--sender-key", "\(Cluster.project)=\(Cluster.senderKey)"])
        processes.withLock { $0[index] = process }
        _ = try await process.waitForLine(startingWith: "pushrelay listening on ")
    }

    /// SIGKILL: no graceful end for its polls and requests in flight.
    public func kill(_ index: Int) async throws {
        guard let process = processes.withLock({ $0[index] }) else { return }
        process.signal(SIGKILL)
        _ = try await process.waitForExit()
    }

    /// Its `pushrelay_polls_waiting`: the long-polls it holds now.
    public func waitingPolls(_ index: Int) async throws -> Int {
        let metrics = try await CurlHTTPClient.shared.send(HTTPRequest(url: urls[index] + "/metrics")).text
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("pushrelay_polls_waiting ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    public func output(_ index: Int) -> String { processes.withLock { $0[index]?.text ?? "" } }

    public func stopAll() async {
        for process in processes.withLock({ $0 }) { await process?.stop() }
    }
}
