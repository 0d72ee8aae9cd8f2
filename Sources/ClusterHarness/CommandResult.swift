import Foundation

/// A finished command: exit code and output.
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// Runs a command to completion; with `asUID`, as that uid (and the same gid) through setpriv (needs root). Its
    /// stdin is `input` (small: it is written whole before the output is read), or empty. The wait is on a thread of
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

    private static func runBlocking(_ executable: String, _ arguments: [String], asUID uid: UInt32?, input: String?,
                                    environment extra: [String: String]) throws -> CommandResult {
        let process = Process()
        if let uid {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "PUSHAGENT_SOCKET")
        environment.merge(extra) { $1 }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = input.map { _ in Pipe() }
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
        if let stdin, let input {
            try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandResult(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                             stderr: String(decoding: stderr, as: UTF8.self))
    }
}
