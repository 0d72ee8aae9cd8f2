import Foundation

/// A finished command: exit code and output.
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// Runs a command to completion; with `asUID`, as that uid (and the same gid) through setpriv (needs root). Its
    /// stdin is `input` (small: it is written whole before the output is read), or empty. Started by `Spawn`, not
    /// Foundation's Process (Spawn says why). The wait is on a thread of
    /// its own: the test process's cooperative pool has a thread per core, and two commands blocking them (initdb,
    /// pg_ctl) stalled every other test of the parallel run for half a minute.
    public static func run(_ executable: String, _ arguments: [String], asUID uid: UInt32? = nil,
                           input: String? = nil, environment extra: [String: String] = [:]) async throws -> CommandResult {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try runBlocking(executable, arguments, asUID: uid, input: input, environment: extra)
                })
            }.start()
        }
    }

    /// `run`, blocking the calling thread. Not for a test's own thread: short commands by the dozen (oathtool, a
    /// Python check) blocking both cooperative threads of a 2-core machine starved every other test of the parallel
    /// run past its deadlines.
    private static func runBlocking(_ executable: String, _ arguments: [String], asUID uid: UInt32? = nil,
                                   input: String? = nil, environment extra: [String: String] = [:]) throws -> CommandResult {
        let (program, argv) = uid.map {
            ("/usr/bin/setpriv", ["--reuid=\($0)", "--regid=\($0)", "--clear-groups", executable] + arguments)
        } ?? (executable, arguments)
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "PUSHAGENT_SOCKET")
        environment.merge(extra) { $1 }
        var pipes: [(read: Int32, write: Int32)] = []
        let pid: pid_t
        do {
            for _ in 0..<3 { pipes.append(try Spawn.pipe()) }
            pid = try Spawn.start(program, argv, environment: environment, stdio: (pipes[0].read, pipes[1].write, pipes[2].write))
        } catch {
            for pipe in pipes { close(pipe.read); close(pipe.write) }
            throw error
        }
        let (stdin, stdout, stderr) = (pipes[0], pipes[1], pipes[2])
        for fd in [stdin.read, stdout.write, stderr.write] { close(fd) }
        if let input {
            let bytes = Array(input.utf8)
            var written = 0
            while written < bytes.count {
                let count = bytes[written...].withUnsafeBytes { write(stdin.write, $0.baseAddress, $0.count) }
                if count > 0 { written += count } else if errno != EINTR { break }
            }
        }
        close(stdin.write)
        let (out, err) = Spawn.readAll(stdout.read, stderr.read)
        return CommandResult(status: Spawn.wait(pid), stdout: String(decoding: out, as: UTF8.self),
                             stderr: String(decoding: err, as: UTF8.self))
    }
}
