import ArgumentParser
import ClusterHarness
import ControlClient
import ControlWire
import Foundation
import PushSim
import Synchronization

/// The benchmarks of docs/benchmarks.md that start the real programs: `end-to-end` (the default, `make bench`) and
/// `webpush` (`make bench-webpush`).
struct PushBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushbench",
        abstract: "Benchmarks of the real programs on loopback (docs/benchmarks.md).",
        subcommands: [EndToEndBench.self, WebPushBench.self],
        defaultSubcommand: EndToEndBench.self)
}

/// End-to-end benchmark on loopback: pushsim → pushrelay (or pushsim's FCM emulator, `--transport fcm`) → pushagentd,
/// timed until the daemon announces the approval; and what the idle daemon costs (RSS, CPU) before the pushes.
struct EndToEndBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "end-to-end",
        abstract: "Measure push-sent → approval-visible latency and messages/second through relay + daemon on loopback.")

    @Option(help: "Directory with the built programs (e.g. .build/release).") var binDir: String?
    @Option(help: "Pushes sent one at a time for the latency figures.") var latencyPushes = 200
    @Option(help: "Pushes for the throughput figure.") var throughputPushes = 1000
    @Option(help: "Pushes in flight at once for the throughput figure.") var concurrency = 16
    @Option(help: "How pushes reach the daemon: relay, or fcm (pushsim's FCM emulator, MCS over TLS).")
    var transport = "relay"
    @Option(help: "Seconds the daemon is watched idle (RSS, CPU) before the pushes.") var idleSeconds = 10

    func validate() throws {
        guard ["relay", "fcm"].contains(transport) else { throw ValidationError("--transport: relay or fcm") }
    }

    func run() async throws {
        if let binDir { setenv("PUSHAGENT_BIN_DIR", URL(fileURLWithPath: binDir).path, 1) }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pushbench-\(UUID())").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let flushes = try FlushProbe.line(directory: scratch)
        let fcm = transport == "fcm" ? try await FCMEmulatorProcess(directory: scratch) : nil
        let cluster = try await Cluster(simSendsThrough: fcm?.sendBaseURL)
        do {
            // The daemon's default: each approval looked at for pending look-alikes to replace. Each push carries a
            // sign-in of its own (its own message), so none replaces another. The push budget stays off: it would
            // deny all but a few of the pushes to the one account.
            var environment = ["PUSHAGENT_LOG_LEVEL": "warning", "PUSHAGENT_COLLAPSE_SIMILAR_PENDING": "true"]
            if let fcm { environment.merge(fcm.daemonEnvironment.filter { $0.key != "PUSHAGENT_FCM_HEARTBEAT_SECONDS" }) { $1 } }
            try await cluster.startDaemon(extraEnvironment: environment)
            if fcm != nil {
                try await eventually("pushagentd logged in to FCM") {
                    try await cluster.client.status().pushSources?.first { $0.name == "fcm" }?.state == "connected"
                }
            }
            let sim = SimAdminClient(baseURL: cluster.simURL)
            _ = try await cluster.client.enroll(uri: try await sim.enrollURI(), fcmApp: fcm == nil ? nil : "default")
            let idle = try await IdleCost.measure(pid: cluster.daemon!.pid, seconds: idleSeconds)
            let created = try await CreatedCounter(client: cluster.client)

            // Split where the time goes: until pushsim's send returned (signing, the transport accepting it), and
            // from then until the approval was visible (delivery, the agent's ingest, the event). Apart: from the
            // moment pushsim began sending, as a provider's push is sent, without the admin call and the signing.
            var latencies: [Double] = [], sends: [Double] = [], fromProviderSend: [Double] = []
            for _ in 0..<latencyPushes {
                let target = created.count + 1
                let start = MonotonicTime.nanoseconds()
                let push = try await sim.push(.init(message: "sign-in \(target)"))
                sends.append(milliseconds(from: start, to: MonotonicTime.nanoseconds()))
                let seen = try await created.arrival(of: target)
                latencies.append(milliseconds(from: start, to: seen))
                if let sent = push.sendStartedNs { fromProviderSend.append(milliseconds(from: sent, to: seen)) }
            }
            let afterSend = zip(latencies, sends).map { $0 - $1 }.sorted()
            latencies.sort()
            sends.sort()
            fromProviderSend.sort()

            let base = created.count
            let start = MonotonicTime.nanoseconds()
            try await withThrowingTaskGroup(of: Void.self) { group in
                let perWorker = throughputPushes / concurrency
                for worker in 0..<concurrency {
                    group.addTask {
                        for push in 0..<perWorker { _ = try await sim.push(.init(message: "sign-in \(worker)-\(push)")) }
                    }
                }
                try await group.waitForAll()
            }
            let sent = throughputPushes / concurrency * concurrency
            let last = try await created.arrival(of: base + sent, timeout: .seconds(120))
            let seconds = milliseconds(from: start, to: last) / 1000

            print("""
            \(flushes)
            transport: \(transport)
            idle daemon over \(idleSeconds) s: RSS \(format(idle.rssMiB)) MiB (anonymous \(format(idle.anonymousMiB)) MiB), CPU \(format(idle.cpuMilliseconds)) ms
            push sent → approval visible (\(latencyPushes) sequential pushes, loopback):
              p50 \(format(percentile(latencies, 0.50))) ms   p90 \(format(percentile(latencies, 0.90))) ms   p99 \(format(percentile(latencies, 0.99))) ms   max \(format(latencies.last ?? 0)) ms
              of which until pushsim's send returned: p50 \(format(percentile(sends, 0.50))) ms; after it: p50 \(format(percentile(afterSend, 0.50))) ms
              from pushsim beginning to send it (its admin call and signing left out): p50 \(format(percentile(fromProviderSend, 0.50))) ms   p90 \(format(percentile(fromProviderSend, 0.90))) ms
            throughput: \(sent) pushes, \(concurrency) in flight: \(format(Double(sent) / seconds)) approvals/s (\(format(seconds)) s)
            """)
        } catch {
            // Events are for watching, not counting: a slow subscriber loses old ones. The store says what arrived.
            if let stored = try? await cluster.client.approvals(state: .pending) {
                print("pushagentd holds \(stored.count) pending approvals")
            }
            await cluster.stopAll()
            await fcm?.stop()
            throw error
        }
        await cluster.stopAll()
        await fcm?.stop()
    }

    private func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    private func format(_ value: Double) -> String { String(format: "%.1f", value) }

    /// Between two `MonotonicTime` readings; negative if `end` came first.
    private func milliseconds(from start: UInt64, to end: UInt64) -> Double {
        (Double(end) - Double(start)) / 1e6
    }
}

/// Counts `approval.created` events from the daemon's event stream, and notes when each arrived, on `MonotonicTime`:
/// the clock pushsim reports its sends on.
final class CreatedCounter: Sendable {
    private struct Arrivals {
        var instants: [UInt64] = []
        var waiters: [Waiter] = []
        var waitsStarted = 0
        /// Waits whose timeout came before they were in `waiters`.
        var givenUp: Set<Int> = []
    }

    private struct Waiter {
        var number: Int
        var id: Int
        var continuation: CheckedContinuation<UInt64, any Error>
    }

    /// A class, so that the stream's reading task can hold it.
    private final class Shared: Sendable {
        let arrivals = Mutex(Arrivals())
    }

    private let shared = Shared()
    private let task: Task<Void, Never>

    init(client: ControlClient) async throws {
        let events = try await client.events()
        let shared = self.shared
        task = Task {
            do {
                for try await event in events where event.type == .approvalCreated {
                    let now = MonotonicTime.nanoseconds()
                    let due = shared.arrivals.withLock { arrivals in
                        arrivals.instants.append(now)
                        let count = arrivals.instants.count
                        let due = arrivals.waiters.filter { $0.number <= count }
                        arrivals.waiters.removeAll { $0.number <= count }
                        return due.map { ($0.continuation, arrivals.instants[$0.number - 1]) }
                    }
                    for (continuation, instant) in due { continuation.resume(returning: instant) }
                }
            } catch {}
        }
    }

    var count: Int { shared.arrivals.withLock { $0.instants.count } }

    /// When the `number`th event arrived, as the stream's reader took it. The waiter is woken by that reader rather
    /// than looking on a timer: even a look every millisecond took CPU from the programs measured on a 2-core machine.
    func arrival(of number: Int, timeout: Duration = .seconds(10)) async throws -> UInt64 {
        let id = shared.arrivals.withLock { arrivals in
            arrivals.waitsStarted += 1
            return arrivals.waitsStarted
        }
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            self?.giveUp(waiter: id)
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let arrived = shared.arrivals.withLock { arrivals -> Result<UInt64, HarnessError>? in
                if arrivals.instants.count >= number { return .success(arrivals.instants[number - 1]) }
                if arrivals.givenUp.remove(id) != nil { return .failure(Self.tooFew(arrivals.instants.count, of: number)) }
                arrivals.waiters.append(Waiter(number: number, id: id, continuation: continuation))
                return nil
            }
            if let arrived { continuation.resume(with: arrived) }
        }
    }

    private func giveUp(waiter id: Int) {
        let (waiter, count) = shared.arrivals.withLock { arrivals -> (Waiter?, Int) in
            guard let index = arrivals.waiters.firstIndex(where: { $0.id == id }) else {
                arrivals.givenUp.insert(id)
                return (nil, 0)
            }
            return (arrivals.waiters.remove(at: index), arrivals.instants.count)
        }
        if let waiter { waiter.continuation.resume(throwing: Self.tooFew(count, of: waiter.number)) }
    }

    private static func tooFew(_ count: Int, of number: Int) -> HarnessError {
        HarnessError("only \(count) of \(number) approvals appeared")
    }

    deinit { task.cancel() }
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}

/// What a process costs while nothing happens: its RSS at the end, and the CPU it used meanwhile (/proc). The RSS
/// is split: anonymous memory is the process's own; file-backed pages (the code it ran, mapped from the binary and
/// libraries) are shared and can be dropped and read again by the kernel.
struct IdleCost {
    var rssMiB: Double
    var anonymousMiB: Double
    var cpuMilliseconds: Double

    static func measure(pid: Int32, seconds: Int) async throws -> IdleCost {
        let before = try cpuTicks(pid)
        try await Task.sleep(for: .seconds(seconds))
        let ticks = try cpuTicks(pid) - before
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func kibibytes(_ field: String) -> Double {
            status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
                .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Double($0) } ?? 0
        }
        return IdleCost(rssMiB: kibibytes("VmRSS") / 1024, anonymousMiB: kibibytes("RssAnon") / 1024,
                        cpuMilliseconds: Double(ticks) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// utime + stime of /proc/PID/stat (fields 14 and 15, after the command name in parentheses).
    private static func cpuTicks(_ pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }
}
