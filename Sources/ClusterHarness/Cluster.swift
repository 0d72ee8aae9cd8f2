import ControlClient
import ControlWire
import CurlHTTP
import Foundation
import Synchronization

/// pushrelay + pushsim + pushagentd as real processes on loopback, in a temporary directory.
public final class Cluster: @unchecked Sendable {
    public static let project = "sim"
    public static let senderKey = "sender-key-for-tests-0123456789abcdef"

    public let directory: String
    public private(set) var relay: ManagedProcess?
    public private(set) var relayURL: String
    public private(set) var sim: ManagedProcess!
    public private(set) var simURL: String = ""
    public private(set) var daemon: ManagedProcess?
    /// The relay URL pushagentd is started with: the relay's own when nil, else something in between (a fault proxy).
    public var relayURLForDaemon: String?
    /// More arguments for every start of the relay (a `--config` file, say); set before the first start.
    public var relayArguments: [String] = []
    public var socketPath: String { directory + "/agent.sock" }
    public var stateDirectory: String { directory + "/agent" }
    public var client: ControlClient { ControlClient(socketPath: socketPath) }
    /// The push bombing defences are off: the pipeline's tests and the soak send many look-alike pushes to one
    /// account on purpose. PushFatigueTests turn them on.
    public var daemonEnvironment: [String: String] = [
        "PUSHAGENT_BACKOFF_INITIAL_SECONDS": "0.2", "PUSHAGENT_BACKOFF_MAX_SECONDS": "1",
        "PUSHAGENT_POLL_WAIT_SECONDS": "10", "PUSHAGENT_ANSWER_WAIT_SECONDS": "5",
        "PUSHAGENT_PUSH_LIMIT_PER_ACCOUNT": "0", "PUSHAGENT_COLLAPSE_SIMILAR_PENDING": "false",
    ]

    /// Starts the relay (unless `startRelay` is false: then its address is reserved for `startRelay(port:)`) and pushsim,
    /// which sends its pushes through `simSendsThrough` (FCM's send API, say) instead of the relay when given.
    public init(startRelay: Bool = true, simSendsThrough: String? = nil) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushagent-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if startRelay {
            relayURL = ""
            try await self.startRelay(port: 0)
        } else {
            relayURL = "http://127.0.0.1:\(try Self.freePort())"
        }
        sim = try ManagedProcess(name: "pushsim", executable: Binaries.path("pushsim"), arguments: [
            "serve", "--listen", "127.0.0.1:0", "--relay", simSendsThrough ?? relayURL,
            "--sender-key", Self.senderKey, "--project", Self.project])
        simURL = try await sim.waitForLine(startingWith: "pushsim listening on ")
    }

    public func startRelay(port: Int? = nil) async throws {
        let listenPort = port ?? Int(URL(string: relayURL)?.port ?? 0)
        let process = try ManagedProcess(name: "pushrelay", executable: Binaries.path("pushrelay"), arguments: [
            "--listen", "127.0.0.1:\(listenPort)", "--state-dir", directory + "/relay",
            "--sender-key", "\(Self.project)=\(Self.senderKey)"] + relayArguments)
        relay = process
        relayURL = try await process.waitForLine(startingWith: "pushrelay listening on ")
    }

    /// Starts pushagentd and waits until its socket answers; with `asUID`, as that uid (and the same gid) through
    /// setpriv, owning the cluster's directory so that it can make its state and socket there.
    public func startDaemon(extraEnvironment: [String: String] = [:], extraArguments: [String] = [],
                            waitForRelay: Bool = true, asUID uid: UInt32? = nil) async throws {
        var command = [Binaries.path("pushagentd"), "--state-dir", stateDirectory, "--socket", socketPath,
                       "--relay", relayURLForDaemon ?? relayURL] + extraArguments
        if let uid {
            guard chown(directory, uid, uid) == 0 else {
                throw HarnessError("cannot give \(directory) to uid \(uid): \(String(cString: strerror(errno)))")
            }
            command = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + command
        }
        let process = try ManagedProcess(
            name: "pushagentd", executable: command[0], arguments: Array(command.dropFirst()),
            environment: daemonEnvironment.merging(extraEnvironment) { $1 })
        daemon = process
        try await eventually("pushagentd answers on its socket", timeout: .seconds(20)) {
            guard process.isRunning else { throw HarnessError("pushagentd exited:\n\(process.text)") }
            return (try? await client.status()) != nil
        }
        if waitForRelay {
            try await eventually("pushagentd connects to the relay") { try await client.status().relay.state == .connected }
        }
    }

    /// Runs `body` with a new cluster and stops it afterwards; when `body` fails, pushagentd's output is printed.
    public static func run(startRelay: Bool = true, simSendsThrough: String? = nil,
                           _ body: (Cluster) async throws -> Void) async throws {
        let cluster = try await Cluster(startRelay: startRelay, simSendsThrough: simSendsThrough)
        do {
            try await body(cluster)
        } catch {
            print("pushagentd output:\n\(cluster.daemon?.text ?? "")")
            await cluster.stopAll()
            throw error
        }
        await cluster.stopAll()
    }

    /// Stops the programs; `removeDirectory: false` keeps their state for a post-mortem.
    public func stopAll(removeDirectory: Bool = true) async {
        await daemon?.stop()
        await sim?.stop()
        await relay?.stop()
        if removeDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Runs pushctl against this cluster's daemon.
    public func pushctl(_ arguments: [String], asUID uid: UInt32? = nil, input: String? = nil) async throws
        -> CommandResult {
        try await CommandResult.run(Binaries.path("pushctl"), ["--socket", socketPath] + arguments, asUID: uid, input: input)
    }

    /// A port free now, for a server that binds it later (another program may still take it first). It lies below
    /// the kernel's ephemeral range, which every socket bound to port 0 draws from: a privacyIDEA taking seconds to
    /// start once found its port held by another test's relay, and talked to that relay. This process hands each
    /// port out once.
    static func freePort() throws -> Int {
        let below = ephemeralPortsStart()
        guard below > lowestFreePort + 1000 else { return try ReservedLoopbackPort().port }
        for _ in 0..<1000 {
            let candidate = Int.random(in: lowestFreePort..<below)
            guard portsHandedOut.withLock({ $0.insert(candidate).inserted }) else { continue }
            if (try? ReservedLoopbackPort(port: candidate)) != nil { return candidate }
        }
        throw HarnessError("no free loopback port between \(lowestFreePort) and \(below)")
    }

    private static let lowestFreePort = 20_000
    private static let portsHandedOut = Mutex<Set<Int>>([])

    /// The first port of `ip_local_port_range` (Linux's default is 32768).
    private static func ephemeralPortsStart() -> Int {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        return range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
    }
}

/// A loopback TCP port bound but never listening: connections to it are refused, and no other socket can take it
/// while this object lives.
public final class ReservedLoopbackPort: Sendable {
    public let port: Int
    private let fd: Int32

    /// `port` 0: one the kernel picks.
    public init(port: Int = 0) throws {
        (fd, self.port) = try loopbackSocket(port: port, listening: false)
    }

    deinit { close(fd) }
}

/// A TCP socket bound to 127.0.0.1:`port` (0: one the kernel picks), listening or not, and the port it has.
func loopbackSocket(port: Int, listening: Bool) throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = fd >= 0 && withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0 && (!listening || listen(fd, 8) == 0)
        }
    }
    guard bound else {
        let reason = String(cString: strerror(errno))
        if fd >= 0 { close(fd) }
        throw HarnessError("cannot \(listening ? "listen on" : "reserve") a loopback port: \(reason)")
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// Long-polls `look` (which waits up to `wait` seconds for something new) until it finds something or the timeout
/// passes; nil if it never did. As in `eventually`, the last look starts after the deadline, and does not wait.
public func longPolling<T>(for timeout: Duration, _ look: (_ wait: Int) async throws -> T?) async throws -> T? {
    let deadline = ContinuousClock.now + timeout
    while true {
        let last = ContinuousClock.now >= deadline
        if let found = try await look(last ? 0 : 1) { return found }
        if last { return nil }
    }
}

/// Polls `condition` until it holds or the timeout passes. The last look starts after the deadline: a test starved
/// of threads on a loaded machine past its deadline still sees what happened meanwhile.
public func eventually(_ what: String, timeout: Duration = .seconds(15),
                       _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    var lastError: (any Error)?
    while true {
        let last = ContinuousClock.now >= deadline
        do {
            if try await condition() { return }
        } catch let error as HarnessError {
            throw error
        } catch {
            lastError = error
        }
        if last { break }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw HarnessError("timed out waiting until \(what)\(lastError.map { " (last error: \($0))" } ?? "")")
}
