import ClusterHarness
import Foundation
import PushSim

/// `--deliver-to app` (issue 45 item 5, second half): a UnifiedPush app on a private session bus as the receiving
/// end. pushagentd (started by the harness's `Cluster`, on the round's relay) keeps its long-poll on the relay;
/// `pushctl webpush distributor` serves the bus; the app is scripts/unifiedpush-connector.sh `serve`, which appends
/// one fsynced JSON line per call it receives to its log before replying, with `received_at` (CLOCK_REALTIME, the
/// moment its handler ran). A message counts as delivered at that moment: this end reads the log and reports each
/// `Message` call with its body's stamp, the realtime converted to CLOCK_MONOTONIC with an offset taken once
/// (`MessageStamp.sentAt` is monotonic; monotonic time is not comparable across processes, realtime is on one
/// machine). The path so timed: the relay's queue commit, pushagentd's long-poll answer, its store's commit, the
/// control API's long-poll to the distributor, the D-Bus call, and the connector's handler up to its log line.
final class AppEnd: DeliveryEnd, @unchecked Sendable {
    static let app = "org.example.BenchApp"

    private let cluster: Cluster
    private let bus: PrivateSessionBus
    private let distributor: ManagedProcess
    private let connector: ManagedProcess
    private let logPath: String
    private let state = NSLock()
    private var log: DeliveryLog?
    private var stopping = false
    private var failed: String?
    private var reader: Thread?
    private let readerDone = DispatchSemaphore(value: 0)
    private var registrations = 0
    /// CLOCK_REALTIME − CLOCK_MONOTONIC, ns, read once.
    private let realtimeOffset: Int64

    var description: String {
        "a UnifiedPush app (scripts/unifiedpush-connector.sh serve, Connector2) on a private session bus, through pushagentd (its long-poll on the relay) and pushctl webpush distributor; delivered = the app's Message handler ran (received_at, logged and fsynced before its reply)"
    }

    private init(cluster: Cluster, bus: PrivateSessionBus, distributor: ManagedProcess, connector: ManagedProcess, logPath: String) {
        self.cluster = cluster
        self.bus = bus
        self.distributor = distributor
        self.connector = connector
        self.logPath = logPath
        var realtime = timespec(), monotonic = timespec()
        clock_gettime(CLOCK_REALTIME, &realtime)
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        realtimeOffset = (Int64(realtime.tv_sec) - Int64(monotonic.tv_sec)) * 1_000_000_000 + Int64(realtime.tv_nsec) - Int64(monotonic.tv_nsec)
    }

    static func start(relayPort: Int) async throws -> AppEnd {
        let cluster = try await Cluster(startRelay: false)
        do {
            cluster.relayURLForDaemon = "http://127.0.0.1:\(relayPort)"
            try await cluster.startDaemon()
            let bus = try await PrivateSessionBus.start()
            do {
                try await UnifiedPushConnector.install()
                let distributor = try ManagedProcess(
                    name: "pushctl webpush distributor", executable: Binaries.path("pushctl"),
                    arguments: ["webpush", "distributor", "--socket", cluster.socketPath], environment: bus.environment)
                _ = try await distributor.waitForLine(startingWith: "pushctl webpush distributor: serving")
                let logPath = bus.directory + "/app.jsonl"
                let connector = try await UnifiedPushConnector.serve([app], log: logPath, on: bus)
                return AppEnd(cluster: cluster, bus: bus, distributor: distributor, connector: connector, logPath: logPath)
            } catch {
                await bus.stop()
                throw error
            }
        } catch {
            await cluster.stopAll()
            throw error
        }
    }

    /// `perRecipient` registrations of the one app (tokens of their own), each its own subscription; with
    /// `applicationServerKey`, Distributor2's VAPID key. The endpoint is what NewEndpoint brought to the app.
    func webPushEndpoints(perRecipient: Int, applicationServerKey: String?) async throws -> [String] {
        var endpoints: [String] = []
        for _ in 0..<perRecipient {
            registrations += 1
            let token = "bench-\(registrations)-\(UUID().uuidString.prefix(8))"
            let registered = try await UnifiedPushConnector.register(
                Self.app, token: token, version: 2, on: bus, extra: applicationServerKey.map { ["--vapid", $0] } ?? [])
            guard registered.success == "REGISTRATION_SUCCEEDED" else { throw BenchError("the app's Register: \(registered)") }
            var endpoint: String?
            try await eventually("NewEndpoint for \(token) reaches the app", timeout: .seconds(30)) {
                endpoint = UnifiedPushConnector.loggedCalls(logPath).first { $0.method == "NewEndpoint" && $0.token == token }?.endpoint
                return endpoint != nil
            }
            endpoints.append(endpoint!)
        }
        return endpoints
    }

    func fcmTokens() -> [String]? { nil }

    func record(into log: DeliveryLog) { state.withLock { self.log = log } }

    var failure: String? { state.withLock { failed } }
    var restarts: Int { 0 }

    func start() throws {
        let thread = Thread { [self] in
            defer { readerDone.signal() }
            follow()
        }
        thread.start()
        reader = thread
    }

    /// Reads the app's log as it grows (every half millisecond: the time is the app's, not this reader's).
    private func follow() {
        guard let handle = FileHandle(forReadingAtPath: logPath) else {
            state.withLock { failed = "cannot open \(logPath)" }
            return
        }
        defer { try? handle.close() }
        var pending = Data()
        while !state.withLock({ stopping }) {
            let chunk = handle.availableData
            if chunk.isEmpty {
                usleep(500)
                continue
            }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[pending.startIndex..<newline]
                pending = Data(pending[(newline + 1)...])
                guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
                      object["method"] as? String == "Message" else { continue }
                guard let text = object["message_b64"] as? String, let body = Data(base64Encoded: text),
                      body.count >= MessageStamp.byteCount, let receivedAt = object["received_at"] as? Double else {
                    state.withLock { failed = "a Message line without message_b64 or received_at: \(String(decoding: line, as: UTF8.self))" }
                    continue
                }
                let instant = Int64((receivedAt * 1e9).rounded()) - realtimeOffset
                state.withLock { log }?.received([MessageStamp(body.prefix(MessageStamp.byteCount))], at: UInt64(max(instant, 0)))
            }
        }
    }

    func stop() async {
        state.withLock { stopping = true }
        if reader != nil { readerDone.wait() }
        await connector.stop()
        await distributor.stop()
        await bus.stop()
        await cluster.stopAll()
    }
}
