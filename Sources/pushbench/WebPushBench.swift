import ArgumentParser
import ClusterHarness
import Crypto
import Foundation
import PushSim
import Synchronization

/// `pushbench webpush` (issue 45, item 5): the relay's Web Push service (RFC 8030 `POST /push/<token>`, without and
/// with VAPID) beside its FCM-v1 send API, in one run: messages/s accepted and delivered at several sender counts and
/// body sizes, and the sender's POST → delivery latency one message at a time, with the relay's and this generator's
/// CPU, the disk's fdatasync figures beside them. Each round starts a fresh pushrelay for each send path in turn, so
/// that a slow spell of this shared machine falls on all of them; the report gives medians and ranges over rounds.
///
/// The load generator is this process: blocking keep-alive connections on threads of their own (`BlockingHTTPConnection`),
/// one per sender and one per device's long-poll, requests written from templates (`RequestWriter`), answers scanned
/// without a JSON parser. Its CPU is printed beside the relay's, to show it is not what bounds the figures.
struct WebPushBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webpush",
        abstract: "Measure the relay's Web Push service beside its FCM-v1 send API: throughput and latency on loopback.")

    @Option(help: "Directory with the built programs (e.g. .build/release).") var binDir: String?
    @Option(help: "Send paths, comma-separated, run in this order in each round: webpush, webpush-vapid, fcm (OAuth access token), fcm-key (static sender key).")
    var paths = "webpush,webpush-vapid,fcm"
    @Option(help: "Sender counts for the throughput runs, comma-separated: each sender POSTs its next message when the previous one is answered.")
    var senders = "1,8,32"
    @Option(help: "Body sizes in bytes, comma-separated (Web Push: the aes128gcm body, 18...4096; FCM: the same bytes in one data value, at most 3057).")
    var sizes = "200,4096"
    @Option(help: "Rounds: each starts a fresh relay per send path, in turn.") var rounds = 3
    @Option(help: "Devices long-polling the relay.") var devices = 100
    @Option(help: "Web Push subscriptions per device; messages go round robin over all of them (the relay allows each subscription 100 at once, then 10 a second).")
    var subscriptionsPerDevice = 10
    @Option(help: "Seconds of each throughput run before counting.") var warmup = 1.0
    @Option(help: "Seconds counted of each throughput run.") var seconds = 5.0
    @Option(help: "Messages sent one at a time for the latency figures, per path and size.") var latencyCount = 500
    @Option(help: "VAPID JWTs: per-message (signed for every message, as pywebpush does) or reused (signed once, as a sender caching it).")
    var vapidSigning = VAPIDSigning.perMessage
    @Option(help: "Where a message counts as delivered: relay-poll (the device's long-poll answer) or app (a UnifiedPush app's D-Bus Message call, through pushagentd and pushctl webpush distributor; Web Push paths only, --subscriptions-per-device registrations of one app; needs pushagentd, pushctl and pushsim in --bin-dir).")
    var deliverTo = "relay-poll"
    @Option(help: "ES256 signatures signed and verified in this process for the per-message cost (0: skip).") var es256Samples = 2000
    @Flag(help: "Fail unless every path delivered every message it accepted, none twice (the smoke run's check).")
    var check = false

    static let senderKey = "bench-sender-key-0123456789"

    func validate() throws {
        guard ["relay-poll", "app"].contains(deliverTo) else { throw ValidationError("--deliver-to: relay-poll or app") }
        if deliverTo == "app" {
            guard let paths = try? parsedPaths(), paths.allSatisfy(\.isWebPush) else {
                throw ValidationError("--deliver-to app: Web Push paths only (webpush, webpush-vapid)")
            }
            guard sessionBusAvailable else { throw ValidationError("--deliver-to app needs \(sessionBusPrograms.joined(separator: " and "))") }
        }
        guard (try? parsedPaths()) != nil else { throw ValidationError("--paths: a comma-separated list of \(SendPath.allCases.map(\.rawValue))") }
        guard let sizes = numbers(sizes), sizes.allSatisfy({ (MessageStamp.byteCount...4096).contains($0) }) else {
            throw ValidationError("--sizes: comma-separated byte counts from 18 to 4096")
        }
        guard let senders = numbers(senders), senders.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--senders: comma-separated counts, or none (latency only)")
        }
        guard rounds > 0, devices > 0, subscriptionsPerDevice > 0, latencyCount >= 0, seconds > 0, warmup >= 0 else {
            throw ValidationError("--rounds, --devices, --subscriptions-per-device and --seconds must be positive")
        }
    }

    private func parsedPaths() throws -> [SendPath] {
        try paths.split(separator: ",").map {
            guard let path = SendPath(rawValue: $0.trimmingCharacters(in: .whitespaces)) else { throw ValidationError("unknown path \($0)") }
            return path
        }
    }

    private func numbers(_ list: String) -> [Int]? {
        if list == "none" { return [] }
        let values = list.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        return values.isEmpty || values.contains(nil) ? nil : values.compactMap { $0 }
    }

    func run() async throws {
        if let binDir { setenv("PUSHAGENT_BIN_DIR", URL(fileURLWithPath: binDir).path, 1) }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pushbench-webpush-\(UUID())").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let loadAtStart = Self.loadAverage()
        let paths = try parsedPaths(), sizes = numbers(sizes)!, senderCounts = numbers(senders)!
        let account = try await ServiceAccount.make(in: scratch)
        let es256 = es256Samples > 0 ? ES256Cost.measure(samples: es256Samples) : nil
        var results = Results()
        var runNumber: UInt16 = 0
        var deliveryEnd = ""
        var originLimitsTurnedOff = false

        var roundLines: [String] = []
        for round in 1...rounds {
            // The disk's speed moves every durable figure within minutes on this shared VM: each round says its own.
            let roundLine = "round \(round): \(try FlushProbe.line(directory: scratch)); load average \(Self.loadAverage())"
            roundLines.append(roundLine)
            log(roundLine)
            for path in paths {
                let relay = try await BenchRelay.start(directory: scratch + "/relay-\(round)-\(path.rawValue)",
                                                       servicePublicKey: account.publicKeyPath)
                originLimitsTurnedOff = relay.originLimitsTurnedOff
                let end: any DeliveryEnd = deliverTo == "app" ? try await AppEnd.start(relayPort: relay.port)
                    : try RelayPollEnd(port: relay.port, devices: devices)
                deliveryEnd = end.description
                do {
                    let signer = path == .webPushVAPID ? VAPIDSigner() : nil
                    let targets: [String]
                    switch path {
                    case .webPush, .webPushVAPID:
                        targets = try await end.webPushEndpoints(perRecipient: subscriptionsPerDevice, applicationServerKey: signer?.publicKey)
                    case .fcm, .fcmKey:
                        guard let tokens = end.fcmTokens() else { throw BenchError("\(deliverTo) takes no FCM sends") }
                        targets = tokens
                    }
                    let bearer: String? = switch path {
                    case .fcm: try account.accessToken(relayPort: relay.port)
                    case .fcmKey: Self.senderKey
                    default: nil
                    }
                    try end.start()
                    let runner = Runner(port: relay.port, relayPID: relay.process.pid, end: end)
                    for size in sizes {
                        let writer = try RequestWriter(path: path, bodySize: size, targets: targets, port: relay.port,
                                                       bearer: bearer, signer: signer, signing: vapidSigning)
                        if latencyCount > 0 {
                            log("round \(round)/\(rounds), \(path.title), \(size) B: \(latencyCount) messages one at a time")
                            let figures = try runner.latency(writer: writer, count: latencyCount, run: &runNumber)
                            results.latency[.init(path: path, size: size, senders: 1), default: []].append(figures)
                        }
                        for count in senderCounts {
                            log("round \(round)/\(rounds), \(path.title), \(size) B: \(count) senders, \(warmup) s + \(seconds) s")
                            let figures = try runner.load(writer: writer, senders: count, warmup: warmup, seconds: seconds, run: &runNumber)
                            results.load[.init(path: path, size: size, senders: count), default: []].append(figures)
                            log("  accepted \(Int(figures.acceptedPerSecond))/s, delivered \(Int(figures.deliveredPerSecond))/s, p50 \(format(figures.p50)) ms, relay \(Int(figures.relayCorePercent)) % of a core, generator \(Int(figures.generatorCorePercent)) %")
                        }
                    }
                    if let failure = end.failure { throw BenchError("the delivery end failed: \(failure)") }
                    results.restarts[path, default: 0] += end.restarts
                } catch {
                    await end.stop()
                    await relay.process.stop()
                    throw error
                }
                await end.stop()
                await relay.process.stop()
            }
        }

        let flushesAfter = try FlushProbe.line(directory: scratch)
        print("""
        \(roundLines.joined(separator: "\n"))
        after the rounds: \(flushesAfter)
        load average (1, 5, 15 min): \(loadAtStart) at the start, \(Self.loadAverage()) at the end
        pushrelay \(Binaries.path("pushrelay")) on SQLite, started afresh for each send path in each round; \(rounds) round(s), paths in turn: \(paths.map(\.title).joined(separator: ", "))
        delivered to: \(deliveryEnd)
        Web Push rate limits: each subscription's (100 at once, then 10 a second) kept; \(originLimitsTurnedOff ? "the per-origin ones (VAPID key, client address) turned off: \(BenchRelay.originLimitsOff.split(separator: "\n").joined(separator: ", "))" : "this relay has no per-origin ones")
        targets: \(deliverTo == "app" ? "Web Push round robin over \(subscriptionsPerDevice) registrations of one app (one device: pushagentd)" : "Web Push round robin over \(devices * subscriptionsPerDevice) subscriptions (\(subscriptionsPerDevice) a device), FCM over the \(devices) devices' tokens"); Web Push TTL 86400, Urgency normal, aes128gcm bodies of random bytes
        VAPID: one P-256 key, an ES256 JWT (aud the relay's origin, exp 12 h) \(vapidSigning == .perMessage ? "signed for every message, as pywebpush does" : "signed once and reused")\(paths.contains(where: { !$0.isWebPush }) ? "; FCM-v1: " : "")\(paths.contains(.fcm) ? "an OAuth2 access token from the relay's /token (RS256 service-account assertion), fetched once per relay" : "")\(paths.contains(.fcmKey) ? (paths.contains(.fcm) ? "; " : "") + "a static sender key" : "")
        """)
        if let es256 {
            print(String(format: "VAPID in this process (swift-crypto, %d samples), the relay's work per message replicated: %.1f µs = header read %.1f + base64url and JSONDecoder %.1f + P-256 key from k %.1f + ECDSA verify %.1f; the sender's ES256 signing %.1f µs",
                         es256Samples, es256.totalMicroseconds, es256.headerMicroseconds, es256.jsonMicroseconds, es256.keyMicroseconds,
                         es256.ecdsaMicroseconds, es256.signMicroseconds))
        }
        print(results.report(paths: paths, sizes: sizes, senders: senderCounts, latencyCount: latencyCount,
                             delivered: deliverTo == "app" ? "the app's Message call" : "device's poll answer read",
                             warmup: warmup, seconds: seconds))
        if check { try results.check(paths: paths) }
    }

    private func log(_ line: String) {
        FileHandle.standardError.write(Data(("pushbench webpush: " + line + "\n").utf8))
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
    }
}

/// A pushrelay started for one path of one round, on a fresh state directory.
struct BenchRelay {
    let process: ManagedProcess
    let port: Int
    /// Whether the relay took `originLimitsOff`; false for a relay that has no per-origin limits (it refuses the keys).
    let originLimitsTurnedOff: Bool

    /// Every sender here is one client address, and the VAPID path one key: the relay's per-origin Web Push limits
    /// (per VAPID key and per address, 100 messages a second after a burst of 1000 by default) would measure
    /// themselves, not the service. They are turned off; each subscription keeps its own limit, which the senders
    /// stay under by spreading their messages over many subscriptions.
    static let originLimitsOff = "webpush_vapid_key_burst = 0\nwebpush_address_burst = 0\n"

    static func start(directory: String, servicePublicKey: String) async throws -> BenchRelay {
        let config = directory + ".toml"
        try originLimitsOff.write(toFile: config, atomically: true, encoding: .utf8)
        do {
            return try await start(directory: directory, servicePublicKey: servicePublicKey, config: config)
        } catch let error as HarnessError where error.description.contains("unknown key `webpush_") {
            return try await start(directory: directory, servicePublicKey: servicePublicKey, config: "/dev/null")
        }
    }

    private static func start(directory: String, servicePublicKey: String, config: String) async throws -> BenchRelay {
        let process = try ManagedProcess(name: "pushrelay", executable: Binaries.path("pushrelay"), arguments: [
            "--config", config, "--listen", "127.0.0.1:0", "--state-dir", directory,
            "--sender-key", "bench=\(WebPushBench.senderKey)", "--service-account", "bench=\(servicePublicKey)"])
        let url = try await process.waitForLine(startingWith: "pushrelay listening on ")
        guard let port = URL(string: url)?.port else { throw BenchError("pushrelay printed \(url)") }
        return BenchRelay(process: process, port: port, originLimitsTurnedOff: config != "/dev/null")
    }
}

/// The figures of one throughput run.
struct LoadFigures {
    var acceptedPerSecond: Double
    var deliveredPerSecond: Double
    /// Send → receipt of the messages received within the counted seconds, ms.
    var p50: Double
    var p99: Double
    /// The relay's CPU over the counted seconds, per message delivered within them, ms.
    var relayCPUPerMessage: Double
    var relayCorePercent: Double
    var generatorCorePercent: Double
    /// 429 answers (the subscription's rate, or a full device queue).
    var refused: Int
    /// Accepted but not delivered 10 s after the senders stopped.
    var lost: Int
    var duplicates: Int
}

/// The figures of one latency run: messages one at a time, each sent once the previous one was delivered.
struct LatencyFigures {
    var p50: Double
    var p99: Double
    var relayCPUPerMessage: Double
}

/// Runs the senders against one relay and delivery end.
struct Runner {
    let port: Int
    let relayPID: Int32
    let end: any DeliveryEnd

    /// Not counted: the first messages after a relay starts (its caches, the pages SQLite has not read yet).
    private static let latencyWarmUp = 20

    func latency(writer: RequestWriter, count: Int, run: inout UInt16) throws -> LatencyFigures {
        let connection = try BlockingHTTPConnection(port: port)
        var request: [UInt8] = []
        var target = 0
        var relayBefore = 0
        for phase in 0..<2 {
            run &+= 1
            let messages = phase == 0 ? Self.latencyWarmUp : count
            let log = DeliveryLog(run: run, window: 0...UInt64.max)
            end.record(into: log)
            if phase == 1 { relayBefore = try cpuTicks("/proc/\(relayPID)/stat") }
            for number in 0..<messages {
                _ = try writer.write(number: UInt64(number), run: run, target: target % writer.targets, into: &request)
                target += 1
                try connection.send(request)
                try expectAccepted(connection, writer.path)
                guard log.waitUntilDelivered(number + 1, timeout: .seconds(10)) else {
                    throw BenchError("\(writer.path.title): message \(number) was accepted but not delivered within 10 s\(end.failure.map { " (\($0))" } ?? "")")
                }
            }
            if phase == 1 {
                let ticks = try cpuTicks("/proc/\(relayPID)/stat") - relayBefore
                let latencies = log.figures.latencies
                return LatencyFigures(p50: percentile(latencies, 0.50), p99: percentile(latencies, 0.99),
                                      relayCPUPerMessage: Double(ticks) * 1000 / Self.ticksPerSecond / Double(max(count, 1)))
            }
        }
        fatalError("unreachable")
    }

    private func expectAccepted(_ connection: BlockingHTTPConnection, _ path: SendPath) throws {
        let (status, text) = try connection.readResponse { status, body in
            (status, status == path.acceptedStatus ? "" : String(decoding: body.prefix(300), as: UTF8.self))
        }
        guard status == path.acceptedStatus else { throw BenchError("\(path.title): a send answered \(status) \(text)") }
    }

    func load(writer: RequestWriter, senders: Int, warmup: Double, seconds: Double, run: inout UInt16) throws -> LoadFigures {
        run &+= 1
        let begin = MonotonicTime.nanoseconds() + 20_000_000
        let windowStart = begin + UInt64(warmup * 1e9), windowEnd = windowStart + UInt64(seconds * 1e9)
        let log = DeliveryLog(run: run, window: windowStart...windowEnd)
        end.record(into: log)
        let numbers = MessageCounter()
        let tallies = (0..<senders).map { _ in SenderTally() }
        let group = DispatchGroup()
        let thisRun = run
        for tally in tallies {
            let connection = try BlockingHTTPConnection(port: port)
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                tally.send(writer: writer, on: connection, numbers: numbers, run: thisRun, from: begin,
                           window: windowStart...windowEnd)
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        sleep(until: windowStart)
        let relayBefore = try cpuTicks("/proc/\(relayPID)/stat"), selfBefore = try cpuTicks("/proc/self/stat")
        sleep(until: windowEnd)
        let relayTicks = try cpuTicks("/proc/\(relayPID)/stat") - relayBefore
        let selfTicks = try cpuTicks("/proc/self/stat") - selfBefore
        group.wait()
        if let failure = tallies.lazy.compactMap(\.failure).first { throw BenchError("\(writer.path.title): \(failure)") }
        let accepted = tallies.map(\.accepted).reduce(0, +)
        _ = log.waitUntilDelivered(accepted, timeout: .seconds(10))
        let figures = log.figures
        let perSecond = { (count: Int) in Double(count) / seconds }
        let corePercent = { (ticks: Int) in Double(ticks) * 100 / Self.ticksPerSecond / seconds }
        return LoadFigures(
            acceptedPerSecond: perSecond(tallies.map(\.acceptedInWindow).reduce(0, +)),
            deliveredPerSecond: perSecond(figures.inWindow),
            p50: percentile(figures.latencies, 0.50), p99: percentile(figures.latencies, 0.99),
            relayCPUPerMessage: Double(relayTicks) * 1000 / Self.ticksPerSecond / Double(max(figures.inWindow, 1)),
            relayCorePercent: corePercent(relayTicks), generatorCorePercent: corePercent(selfTicks),
            refused: tallies.map(\.refused).reduce(0, +), lost: max(0, accepted - figures.total), duplicates: figures.duplicates)
    }

    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The next message's number, shared by a run's senders (which also picks its target, round robin).
final class MessageCounter: Sendable {
    private let value = Atomic<UInt64>(0)
    func next() -> UInt64 { value.wrappingAdd(1, ordering: .relaxed).oldValue }
}

/// One sender thread of a throughput run: what it sent and was answered. Read once its thread has ended.
final class SenderTally: @unchecked Sendable {
    private(set) var accepted = 0, acceptedInWindow = 0, refused = 0
    private(set) var failure: String?

    func send(writer: RequestWriter, on connection: BlockingHTTPConnection, numbers: MessageCounter, run: UInt16,
              from begin: UInt64, window: ClosedRange<UInt64>) {
        sleep(until: begin)
        var request: [UInt8] = []
        request.reserveCapacity(8192)
        let acceptedStatus = writer.path.acceptedStatus
        do {
            while MonotonicTime.nanoseconds() < window.upperBound {
                let number = numbers.next()
                _ = try writer.write(number: number, run: run, target: Int(number % UInt64(writer.targets)), into: &request)
                try connection.send(request)
                let (status, text) = try connection.readResponse { status, body in
                    (status, status == acceptedStatus || status == 429 ? "" : String(decoding: body.prefix(300), as: UTF8.self))
                }
                if status == acceptedStatus {
                    accepted += 1
                    if window.contains(MonotonicTime.nanoseconds()) { acceptedInWindow += 1 }
                } else if status == 429 {
                    refused += 1
                } else {
                    failure = "a send answered \(status) \(text)"
                    return
                }
            }
        } catch {
            failure = "\(error)"
        }
    }
}

/// What VAPID costs a push service per message, measured in this process on the work the relay does for it
/// (WebPushWire is not one of pushbench's dependencies, so this is the same work written again, not its functions):
/// the `Authorization` header read as `VAPIDAuthorization.init(header:)` reads it (split, trimmed, lowercased with
/// Foundation), then `verify(origin:now:)`: the JWT's parts and `k` decoded from base64url, the JWT's header and
/// claims read with JSONDecoder, `k` made a P-256 key, the ECDSA signature checked. And the sender's signing.
struct ES256Cost {
    var headerMicroseconds: Double
    var jsonMicroseconds: Double
    var keyMicroseconds: Double
    var ecdsaMicroseconds: Double
    var signMicroseconds: Double
    var totalMicroseconds: Double { headerMicroseconds + jsonMicroseconds + keyMicroseconds + ecdsaMicroseconds }

    private struct Header: Decodable { var alg: String? }
    private struct Claims: Decodable {
        var aud: String
        var exp: Int64
        var sub: String?
    }

    static func measure(samples: Int) -> ES256Cost {
        let signer = VAPIDSigner()
        let audience = "http://127.0.0.1:8080"
        func timed<T>(_ body: () -> T) -> (T, Double) {
            let start = MonotonicTime.nanoseconds()
            let result = body()
            return (result, Double(MonotonicTime.nanoseconds() - start) / 1000 / Double(samples))
        }
        let (headers, sign) = timed { (0..<samples).map { _ in (try? signer.authorization(audience: audience)) ?? "" } }
        let (parsed, header) = timed {
            headers.map { header -> (token: String, key: String) in
                let trimmed = header.drop(while: { $0 == " " })
                guard let space = trimmed.firstIndex(of: " "), trimmed[..<space].lowercased() == "vapid" else { return ("", "") }
                var parameters: [String: String] = [:]
                for part in trimmed[space...].split(separator: ",") {
                    let pair = part.split(separator: "=", maxSplits: 1)
                    guard pair.count == 2 else { continue }
                    parameters[pair[0].trimmingCharacters(in: .whitespaces).lowercased()] = pair[1].trimmingCharacters(in: .whitespaces)
                }
                return (parameters["t"] ?? "", parameters["k"] ?? "")
            }
        }
        let (decoded, json) = timed {
            parsed.map { token, key -> (key: Data, signature: Data, signed: Data)? in
                let segments = token.split(separator: ".", omittingEmptySubsequences: false)
                guard segments.count == 3, let keyData = base64URL(key), let headerData = base64URL(segments[0]),
                      let claimsData = base64URL(segments[1]), let signatureData = base64URL(segments[2]),
                      (try? JSONDecoder().decode(Header.self, from: headerData))?.alg == "ES256",
                      let claims = try? JSONDecoder().decode(Claims.self, from: claimsData), claims.aud == audience
                else { return nil }
                return (keyData, signatureData, Data(token[..<segments[1].endIndex].utf8))
            }
        }
        let (keys, key) = timed {
            decoded.map { $0.flatMap { try? P256.Signing.PublicKey(x963Representation: $0.key) } }
        }
        let (valid, ecdsa) = timed {
            zip(decoded, keys).filter { decoded, key in
                guard let decoded, let key,
                      let signature = try? P256.Signing.ECDSASignature(rawRepresentation: decoded.signature) else { return false }
                return key.isValidSignature(signature, for: decoded.signed)
            }.count
        }
        precondition(valid == samples, "ES256: \(valid) of \(samples) VAPID headers verified")
        return ES256Cost(headerMicroseconds: header, jsonMicroseconds: json, keyMicroseconds: key, ecdsaMicroseconds: ecdsa,
                         signMicroseconds: sign)
    }

    private static func base64URL(_ text: some StringProtocol) -> Data? {
        let bytes = Array(text.utf8)
        guard bytes.count % 4 != 1 else { return nil }
        var standard = bytes.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 }
        standard += repeatElement(UInt8(ascii: "="), count: (4 - bytes.count % 4) % 4)
        return Data(base64Encoded: Data(standard))
    }
}

/// Every round's figures, and the report over them.
struct Results {
    struct Key: Hashable {
        var path: SendPath
        var size: Int
        var senders: Int
    }

    var load: [Key: [LoadFigures]] = [:]
    var latency: [Key: [LatencyFigures]] = [:]
    var restarts: [SendPath: Int] = [:]

    func report(paths: [SendPath], sizes: [Int], senders: [Int], latencyCount: Int, delivered: String, warmup: Double,
                seconds: Double) -> String {
        let peer: SendPath? = paths.contains(.fcm) ? .fcm : paths.contains(.fcmKey) ? .fcmKey : nil
        func bodyLabel(_ path: SendPath, _ size: Int) -> String {
            path.isWebPush || size <= RequestWriter.fcmLargestBody ? "\(size) B" : "\(RequestWriter.fcmLargestBody) B (FCM's most)"
        }
        var text = ""
        if latencyCount > 0 {
            text += """

            One message at a time (\(latencyCount) per path and size, each sent once the previous one was delivered): sender's POST → \(delivered)
            | send path | body | p50 (ms) | p99 (ms) | relay CPU per message (ms) |
            |---|---|---|---|---|

            """
            for size in sizes {
                for path in paths {
                    guard let rounds = latency[.init(path: path, size: size, senders: 1)] else { continue }
                    text += "| \(path.title) | \(bodyLabel(path, size)) | \(spread(rounds.map(\.p50), 2)) | \(spread(rounds.map(\.p99), 2)) | \(spread(rounds.map(\.relayCPUPerMessage), 3)) |\n"
                }
            }
        }
        guard !senders.isEmpty else { return text }
        text += """

        Throughput (\(warmup) s warm-up, then \(seconds) s counted; each sender POSTs its next message as soon as the previous one is answered): median (range) over rounds
        | body | senders | send path | accepted/s | delivered/s |\(peer.map { " delivered ÷ \($0.title) |" } ?? "") send → receipt p50 (ms) | p99 (ms) | relay CPU per message (ms) | relay CPU (% of a core) | generator CPU (% of a core) | 429s | lost |
        |---|---|---|---|---|\(peer == nil ? "" : "---|")---|---|---|---|---|---|---|

        """
        for size in sizes {
            for count in senders {
                for path in paths {
                    guard let rounds = load[.init(path: path, size: size, senders: count)] else { continue }
                    var row = "| \(size) B | \(count) | \(path.title)\(path.isWebPush ? "" : size > RequestWriter.fcmLargestBody ? " (\(RequestWriter.fcmLargestBody) B)" : "") | \(spread(rounds.map(\.acceptedPerSecond), 0)) | \(spread(rounds.map(\.deliveredPerSecond), 0)) |"
                    if let peer {
                        if let peers = load[.init(path: peer, size: size, senders: count)], peers.count == rounds.count {
                            row += " \(spread(zip(rounds, peers).map { $0.deliveredPerSecond / max($1.deliveredPerSecond, 1) }, 2))× |"
                        } else {
                            row += " – |"
                        }
                    }
                    row += " \(spread(rounds.map(\.p50), 2)) | \(spread(rounds.map(\.p99), 2)) | \(spread(rounds.map(\.relayCPUPerMessage), 3)) | \(spread(rounds.map(\.relayCorePercent), 0)) | \(spread(rounds.map(\.generatorCorePercent), 0)) | \(rounds.map(\.refused).reduce(0, +)) | \(rounds.map(\.lost).reduce(0, +)) |\n"
                    text += row
                }
            }
        }
        let duplicates = load.values.joined().map(\.duplicates).reduce(0, +)
        text += "\nmessages received twice: \(duplicates); polls answered 409 cursor_ahead: \(restarts.values.reduce(0, +))"
        return text
    }

    func check(paths: [SendPath]) throws {
        for (key, rounds) in load {
            guard rounds.allSatisfy({ $0.lost == 0 && $0.duplicates == 0 && $0.deliveredPerSecond > 0 }) else {
                throw BenchError("\(key.path.title), \(key.size) B, \(key.senders) senders: lost \(rounds.map(\.lost)), received twice \(rounds.map(\.duplicates)), delivered/s \(rounds.map(\.deliveredPerSecond))")
            }
        }
        for path in paths where !load.keys.contains(where: { $0.path == path }) && !latency.keys.contains(where: { $0.path == path }) {
            throw BenchError("\(path.title) was not measured")
        }
    }

    /// "median (lowest–highest)", or the one value of a single round.
    private func spread(_ values: [Double], _ decimals: Int) -> String {
        let sorted = values.sorted()
        guard let low = sorted.first, let high = sorted.last else { return "–" }
        let middle = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        let number = { (value: Double) in String(format: "%.\(decimals)f", value) }
        return sorted.count == 1 ? number(middle) : "\(number(middle)) (\(number(low))–\(number(high)))"
    }
}

/// Sorted values; 0 when there are none.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))]
}

private func format(_ value: Double) -> String { String(format: "%.2f", value) }

/// utime + stime of a /proc/…/stat (fields 14 and 15, after the command name in parentheses), in clock ticks.
func cpuTicks(_ statPath: String) throws -> Int {
    let stat = try String(contentsOfFile: statPath, encoding: .utf8)
    guard let close = stat.lastIndex(of: ")") else { throw BenchError("\(statPath): \(stat)") }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
}

/// Sleeps until CLOCK_MONOTONIC reads `instant` (ns).
func sleep(until instant: UInt64) {
    var deadline = timespec(tv_sec: Int(instant / 1_000_000_000), tv_nsec: Int(instant % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
}
