import ArgumentParser
import ClusterHarness
import ControlClient
import ControlWire
import Foundation
import Synchronization

/// End-to-end benchmark on loopback: pushsim → pushrelay → pushagentd, timed until the daemon announces the approval.
struct PushBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushbench",
        abstract: "Measure push-sent → approval-visible latency and messages/second through relay + daemon on loopback.")

    @Option(help: "Directory with the built programs (e.g. .build/release).") var binDir: String?
    @Option(help: "Pushes sent one at a time for the latency figures.") var latencyPushes = 200
    @Option(help: "Pushes for the throughput figure.") var throughputPushes = 1000
    @Option(help: "Pushes in flight at once for the throughput figure.") var concurrency = 16

    func run() async throws {
        if let binDir { setenv("PUSHAGENT_BIN_DIR", URL(fileURLWithPath: binDir).path, 1) }
        let cluster = try await Cluster()
        do {
            try await cluster.startDaemon(extraEnvironment: ["PUSHAGENT_LOG_LEVEL": "warning"])
            let sim = SimClient(baseURL: cluster.simURL)
            _ = try await cluster.client.enroll(uri: try await sim.enrollURI())
            let created = try await CreatedCounter(client: cluster.client)

            var latencies: [Double] = []
            for _ in 0..<latencyPushes {
                let target = created.count + 1
                let start = ContinuousClock.now
                _ = try await sim.push()
                try await created.wait(until: target)
                latencies.append((ContinuousClock.now - start).milliseconds)
            }
            latencies.sort()

            let base = created.count
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                let perWorker = throughputPushes / concurrency
                for _ in 0..<concurrency {
                    group.addTask { for _ in 0..<perWorker { _ = try await sim.push() } }
                }
                try await group.waitForAll()
            }
            let sent = throughputPushes / concurrency * concurrency
            try await created.wait(until: base + sent, timeout: .seconds(120))
            let seconds = (ContinuousClock.now - start).milliseconds / 1000

            print("""
            push sent → approval visible (\(latencyPushes) sequential pushes, loopback):
              p50 \(format(percentile(latencies, 0.50))) ms   p90 \(format(percentile(latencies, 0.90))) ms   p99 \(format(percentile(latencies, 0.99))) ms   max \(format(latencies.last ?? 0)) ms
            throughput: \(sent) pushes, \(concurrency) in flight: \(format(Double(sent) / seconds)) approvals/s (\(format(seconds)) s)
            """)
        } catch {
            await cluster.stopAll()
            throw error
        }
        await cluster.stopAll()
    }

    private func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    private func format(_ value: Double) -> String { String(format: "%.1f", value) }
}

/// Counts `approval.created` events from the daemon's event stream.
final class CreatedCounter: Sendable {
    private final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    private let created = Count()
    private let task: Task<Void, Never>

    init(client: ControlClient) async throws {
        let events = try await client.events()
        let created = self.created
        task = Task {
            do {
                for try await event in events where event.type == .approvalCreated {
                    created.value.add(1, ordering: .relaxed)
                }
            } catch {}
        }
    }

    var count: Int { created.value.load(ordering: .relaxed) }

    /// Polls finely (0.1 ms) rather than waking on the event: the figure measured must not include a scheduler hop.
    func wait(until target: Int, timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while count < target {
            guard ContinuousClock.now < deadline else { throw HarnessError("only \(count) of \(target) approvals appeared") }
            try await Task.sleep(for: .microseconds(100))
        }
    }

    deinit { task.cancel() }
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}
