import Foundation
import Synchronization

/// A private PostgreSQL cluster for tests and benchmarks: initdb into a temporary directory, the postmaster on
/// 127.0.0.1 and a free port (its socket in that directory too), run as the `postgres` user (PostgreSQL refuses
/// root), stopped by its PID. No system service is touched. Debian's `postgresql` package is installed when its
/// programs are missing and we are root.
public final class PostgresServer: Sendable {
    public static let user = "pushrelay"
    public static let password = "relay-password-for-tests"

    public let directory: String
    public let port: Int
    /// `postgres://pushrelay@127.0.0.1:PORT/DATABASE?sslmode=disable`, without the password (see `passwordFile`).
    public let url: String
    /// Holds `password`, 0600, for `--database-password-file`.
    public let passwordFile: String
    /// A new one after `crash()` and `start()`.
    private let postmasterProcess: Mutex<ManagedProcess?>
    private let settings: [String]
    private let binDirectory: String
    private let owner: (uid: UInt32, gid: UInt32)

    /// - Parameters:
    ///   - durable: fsync as in production (the benchmark); off (tests), commits wait for no disk but still reach the
    ///     kernel before they are answered, so a crash of PostgreSQL alone (`crash()`) loses no commit.
    ///   - maxConnections: PostgreSQL's own default is 100.
    public init(database: String = "pushrelay", durable: Bool = false, maxConnections: Int = 200) async throws {
        binDirectory = try await Self.binDirectory()
        owner = try Self.postgresAccount()
        Self.stopOrphans()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(Self.directoryPrefix)\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "\(getpid())".write(toFile: directory + "/" + Self.ownerFile, atomically: true, encoding: .utf8)
        guard chown(directory, owner.uid, owner.gid) == 0 else {
            throw HarnessError("cannot give \(directory) to the postgres user: \(String(cString: strerror(errno)))")
        }
        let data = directory + "/data"
        let initdb = try await CommandResult.run("/usr/bin/setpriv", Self.asOwner(owner) + [
            binDirectory + "/initdb", "-D", data, "--username=postgres", "--auth-local=trust", "--auth-host=scram-sha-256",
            "--encoding=UTF8", "--no-locale", "--no-sync"])
        guard initdb.status == 0 else { throw HarnessError("initdb failed:\n\(initdb.stdout)\n\(initdb.stderr)") }

        port = try Cluster.freePort()
        var settings = [
            "listen_addresses=127.0.0.1", "port=\(port)", "unix_socket_directories=\(directory)", "max_connections=\(maxConnections)",
            "shared_buffers=64MB",
        ]
        if !durable { settings += ["fsync=off", "full_page_writes=off"] }
        self.settings = settings
        postmasterProcess = Mutex(nil)
        passwordFile = directory + "/relay-password"
        url = "postgres://\(Self.user)@127.0.0.1:\(port)/\(database)?sslmode=disable"
        try await start()

        guard FileManager.default.createFile(atPath: passwordFile, contents: Data(Self.password.utf8),
                                             attributes: [.posixPermissions: 0o600])
        else { throw HarnessError("cannot write \(passwordFile)") }
        try await sql("CREATE ROLE \(Self.user) LOGIN PASSWORD '\(Self.password)'")
        try await createDatabase(database)
    }

    private var postmaster: ManagedProcess? { postmasterProcess.withLock { $0 } }

    /// Starts the postmaster on the cluster's data directory and port (again, after `crash()`), and waits until it
    /// accepts connections (after a crash, once it has replayed its WAL).
    public func start() async throws {
        let postmaster = try ManagedProcess(
            name: "postgres", executable: "/usr/bin/setpriv",
            arguments: Self.asOwner(owner) + [binDirectory + "/postgres", "-D", directory + "/data"] + settings.flatMap { ["-c", $0] })
        postmasterProcess.withLock { $0 = postmaster }
        let deadline = ContinuousClock.now + .seconds(30)
        while !postmaster.text.contains("ready to accept connections") {
            guard postmaster.isRunning, ContinuousClock.now < deadline else {
                throw HarnessError("postgres did not start:\n\(postmaster.text)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// `pg_ctl stop -m immediate`: SIGQUIT, so every session is cut off and nothing is flushed or checkpointed, as
    /// when the database host fails; waits until the postmaster is gone.
    public func crash() async throws {
        guard let postmaster, postmaster.isRunning else { return }
        postmaster.signal(SIGQUIT)
        _ = try await postmaster.waitForExit(timeout: .seconds(15))
    }

    /// An empty database owned by the relay's role; returns its URL.
    @discardableResult
    public func createDatabase(_ name: String) async throws -> String {
        try await sql("CREATE DATABASE \(name) OWNER \(Self.user)")
        return "postgres://\(Self.user)@127.0.0.1:\(port)/\(name)?sslmode=disable"
    }

    /// Runs SQL as the superuser over the private socket; returns psql's unaligned output.
    @discardableResult
    public func sql(_ statement: String, database: String = "postgres") async throws -> String {
        let result = try await CommandResult.run("/usr/bin/setpriv", Self.asOwner(owner) + [
            binDirectory + "/psql", "-h", directory, "-p", "\(port)", "-U", "postgres", "-d", database,
            "-v", "ON_ERROR_STOP=1", "-A", "-t", "-c", statement])
        guard result.status == 0 else { throw HarnessError("psql \(statement): \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Fast shutdown (SIGINT: sessions are ended, nothing waits for clients), SIGKILL if that hangs; then the
    /// directory goes.
    public func stop() async {
        if let postmaster, postmaster.isRunning {
            postmaster.signal(SIGINT)
            if (try? await postmaster.waitForExit(timeout: .seconds(15))) == nil {
                postmaster.signal(SIGKILL)
                _ = try? await postmaster.waitForExit()
            }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    static let directoryPrefix = "pushrelay-pg-"
    /// The PID of the process that started the cluster.
    static let ownerFile = "owner.pid"

    /// Stops the clusters of test processes that died without stopping theirs (killed, crashed, timed out), so that
    /// postmasters do not pile up across runs: the postmaster's PID is the first line of `data/postmaster.pid`.
    static func stopOrphans() {
        let temporary = FileManager.default.temporaryDirectory.path
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        for entry in entries where entry.hasPrefix(directoryPrefix) {
            let directory = temporary + "/" + entry
            guard let owner = (try? String(contentsOfFile: directory + "/" + ownerFile, encoding: .utf8)).flatMap({ pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }),
                  kill(owner, 0) != 0, errno == ESRCH else { continue }
            if let postmaster = (try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8))?
                .split(separator: "\n").first.flatMap({ pid_t($0) }),
               isPostmaster(postmaster, of: directory + "/data") {
                kill(postmaster, SIGKILL)
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Whether `pid` is still the postmaster of `data` (started with `-D data`; each cluster's path is its own): a
    /// postmaster that died with its owner left its pid in the file for any process to be given since.
    static func isPostmaster(_ pid: pid_t, of data: String) -> Bool {
        guard let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        let arguments = commandLine.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        return zip(arguments, arguments.dropFirst()).contains { $0 == "-D" && $1 == data }
    }

    private static func asOwner(_ owner: (uid: UInt32, gid: UInt32)) -> [String] {
        ["--reuid=\(owner.uid)", "--regid=\(owner.gid)", "--clear-groups"]
    }

    /// The newest installed major version's programs (Debian keeps them out of PATH).
    private static func binDirectory() async throws -> String {
        if let found = installedBinDirectory() { return found }
        guard getuid() == 0 else {
            throw HarnessError("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): run `make deps` or apt-get install postgresql")
        }
        let install = try await CommandResult.run("/bin/sh", ["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql"])
        guard install.status == 0, let found = installedBinDirectory() else {
            throw HarnessError("installing postgresql failed:\n\(install.stdout)\n\(install.stderr)")
        }
        return found
    }

    private static func installedBinDirectory() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        return versions.reversed().map { "\(root)/\($0)/bin" }.first {
            FileManager.default.isExecutableFile(atPath: $0 + "/initdb")
        }
    }

    /// The package's `postgres` account, else `nobody`: anyone but root.
    private static func postgresAccount() throws -> (uid: UInt32, gid: UInt32) {
        for name in ["postgres", "nobody"] {
            if let entry = getpwnam(name) { return (entry.pointee.pw_uid, entry.pointee.pw_gid) }
        }
        throw HarnessError("no postgres or nobody account to run PostgreSQL as")
    }
}
