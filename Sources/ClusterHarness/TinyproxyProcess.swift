import Foundation

/// A private tinyproxy (Debian's package): an HTTP proxy that tunnels with CONNECT, as corporate networks' do, in
/// the foreground on a free loopback port, stopped by its PID. `requests` is what it logged it was asked.
public final class TinyproxyProcess: Sendable {
    public let url: String
    public let process: ManagedProcess
    private let directory: String

    /// - Parameter connectPorts: the only ports it tunnels to; empty for any.
    public init(connectPorts: [Int] = []) async throws {
        let executable = "/usr/bin/tinyproxy"
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw HarnessError("tinyproxy is not installed: run `make deps` or apt-get install tinyproxy")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tinyproxy-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let port = try Cluster.freePort()
        // No ConnectPort line: CONNECT to any port (MCS's 5228 as well as 443).
        try """
            Port \(port)
            Listen 127.0.0.1
            Timeout 600
            LogLevel Info
            MaxClients 100
            Allow 127.0.0.1
            \(connectPorts.map { "ConnectPort \($0)" }.joined(separator: "\n"))
            """.write(toFile: directory + "/tinyproxy.conf", atomically: true, encoding: .utf8)
        process = try ManagedProcess(name: "tinyproxy", executable: executable, arguments: ["-d", "-c", directory + "/tinyproxy.conf"])
        url = "http://127.0.0.1:\(port)"
        let process = process
        try await eventually("tinyproxy accepts connections", timeout: .seconds(10)) {
            guard process.isRunning else { throw HarnessError("tinyproxy exited:\n\(process.text)") }
            return process.text.contains("Accepting connections")
        }
    }

    /// The request lines it was sent (`CONNECT host:port HTTP/1.1`, `GET http://… HTTP/1.1`).
    public var requests: [String] {
        process.text.split(separator: "\n").compactMap { line in
            line.range(of: "Request (file descriptor ").flatMap { range in
                line[range.upperBound...].split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
            }
        }
    }

    public func stop() async {
        await process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
