import ClusterHarness
import Foundation
import PushRelay
import Testing

/// Where a test's relay keeps its state: the relay semantics tests run on both.
enum TestBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// PostgreSQL runs as the `postgres` user through setpriv, which takes root.
    static var available: [TestBackend] { getuid() == 0 ? allCases : [.sqlite] }
}

/// A suite trait: the suite's tests share one private PostgreSQL cluster (`PostgresServer`), started by the first
/// test that asks for it and stopped by PID when the suite ends. Suites that never ask start nothing.
struct PostgresScope: SuiteTrait, TestScoping {
    @TaskLocal static var current: LazyPostgresServer?

    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let server = LazyPostgresServer()
        do {
            try await Self.$current.withValue(server) { try await function() }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static func server() async throws -> PostgresServer {
        guard let current else { throw TestFailure("this suite needs the .postgres trait") }
        return try await current.server()
    }

    /// A new, empty database on the suite's cluster, so that tests running at once do not meet.
    static func freshDatabase() async throws -> RelayDatabase {
        let server = try await server()
        let url = try await server.createDatabase("t_\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))")
        return try RelayDatabaseSetting(url: url, passwordFile: server.passwordFile).resolve(origin: "test", passwordInURLAllowed: false)
    }
}

actor LazyPostgresServer {
    /// A task, not the server: tests that ask at once share one start.
    private var starting: Task<PostgresServer, any Error>?

    func server() async throws -> PostgresServer {
        let task = starting ?? Task { try await PostgresServer() }
        starting = task
        return try await task.value
    }

    func stop() async {
        await (try? starting?.value)?.stop()
        starting = nil
    }
}

extension Trait where Self == PostgresScope {
    static var postgres: Self { PostgresScope() }
}
