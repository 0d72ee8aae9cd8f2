import Foundation
import Synchronization

/// A real child process whose output is captured, for tests and benchmarks.
public final class ManagedProcess: Sendable {
    public let name: String
    public let pid: Int32
    private let output = OutputBuffer()
    private let end = ProcessEnd()

    /// Starts `executable` with `arguments`; stdout and stderr are collected together; stdin is `standardInput`
    /// (for instance a socket to hand over) or /dev/null; it runs in `workingDirectory`, or in this process's.
    public init(name: String, executable: String, arguments: [String], environment: [String: String] = [:],
                standardInput: FileHandle = .nullDevice, workingDirectory: String? = nil) throws {
        self.name = name
        var env = ProcessInfo.processInfo.environment
        env["PUSHAGENT_LOG_FORMAT"] = "console"
        for (key, value) in environment { env[key] = value }
        // Foundation's null device has no descriptor of its own.
        let input = standardInput === FileHandle.nullDevice ? open("/dev/null", O_RDONLY | O_CLOEXEC) : standardInput.fileDescriptor
        defer { if standardInput === FileHandle.nullDevice { close(input) } }
        let pipe = try Spawn.pipe()
        do {
            pid = try Spawn.start(executable, arguments, environment: env, stdio: (input, pipe.write, pipe.write),
                                  workingDirectory: workingDirectory)
        } catch {
            close(pipe.read)
            close(pipe.write)
            throw error
        }
        close(pipe.write)
        Self.collect(pipe.read, into: output)
        let (pid, end) = (pid, end)
        Thread.detachNewThread {
            // Reaped only under the lock `signal` holds, so that no signal reaches another process given the pid.
            Spawn.waitUntilEnded(pid)
            end.reap { Spawn.waitForEnd(pid) }
        }
    }

    /// Reads until every holder of the pipe's write end (the process and its children) has exited, on a thread of
    /// its own with blocking reads: FileHandle's `readabilityHandler` (a dispatch read source per process) crashed
    /// libdispatch's event loop (`_dispatch_event_loop_drain`) in a run with dozens of processes starting and ending.
    private static func collect(_ reader: Int32, into output: OutputBuffer) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(reader, &buffer, buffer.count)
                if count > 0 {
                    output.append(Data(buffer[..<count]))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(reader)
            output.finish()
        }
    }

    public var isRunning: Bool { end.value == nil }
    public var text: String { output.text }

    /// Waits until a line of output starts with `prefix` and returns the rest of it. The last look is after the
    /// deadline: a test starved of threads past it (a loaded machine) must not miss a line printed meanwhile.
    public func waitForLine(startingWith prefix: String, timeout: Duration = .seconds(20)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        func printed() -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        }
        while true {
            let last = ContinuousClock.now >= deadline
            if let rest = printed() { return rest }
            guard isRunning else {
                let ended = try await waitForExit()
                if let rest = printed() { return rest }
                throw HarnessError("\(name) exited (\(ended.signaled ? "signal " : "")\(ended.status)) before printing '\(prefix)':\n\(text)")
            }
            if last { throw HarnessError("\(name) printed no line starting with '\(prefix)' within \(timeout):\n\(text)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Only until it is reaped: from then on its pid may be another process's.
    public func signal(_ signal: Int32) { end.whileNotReaped { kill(pid, signal) } }

    /// Waits for the process to end and returns its exit status (or the signal that ended it).
    public func waitForExit(timeout: Duration = .seconds(15)) async throws -> (status: Int32, signaled: Bool) {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            guard ContinuousClock.now < deadline else { throw HarnessError("\(name) still running after \(timeout)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        // What it printed last may still be in the pipe: its reader gets to the end, unless a child of the process
        // holds the pipe open (then what is there after a moment).
        let drained = ContinuousClock.now + .seconds(2)
        while !output.isFinished, ContinuousClock.now < drained { try await Task.sleep(for: .milliseconds(10)) }
        return end.value ?? (-1, false)
    }

    /// SIGTERM, then SIGKILL if it does not end.
    public func stop() async {
        guard isRunning else { return }
        signal(SIGTERM)
        if (try? await waitForExit(timeout: .seconds(10))) == nil {
            signal(SIGKILL)
            _ = try? await waitForExit()
        }
    }

    deinit {
        signal(SIGKILL)
    }
}

/// Set once the process ended and was reaped: its exit code, or the signal that ended it.
private final class ProcessEnd: Sendable {
    private let ended = Mutex<(status: Int32, signaled: Bool)?>(nil)
    /// Reaps the process (`wait`) and records how it ended, as one step for `whileNotReaped`.
    func reap(_ wait: () -> (status: Int32, signaled: Bool)) { ended.withLock { $0 = wait() } }
    func whileNotReaped(_ body: () -> Void) { ended.withLock { if $0 == nil { body() } } }
    var value: (status: Int32, signaled: Bool)? { ended.withLock { $0 } }
}

/// Output collected from the pipe's reader thread.
private final class OutputBuffer: Sendable {
    private let data = Mutex(Data())
    private let finished = Mutex(false)
    func append(_ chunk: Data) { data.withLock { $0.append(chunk) } }
    /// The reader reached the end of the pipe: every holder of its write end is gone.
    func finish() { finished.withLock { $0 = true } }
    var isFinished: Bool { finished.withLock { $0 } }
    var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }
}

public struct HarnessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
