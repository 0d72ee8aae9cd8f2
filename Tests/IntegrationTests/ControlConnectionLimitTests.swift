import ClusterHarness
import ControlClient
import ControlWire
import CurlHTTP
import Foundation
import Testing

/// The control socket under idle, slow and excessive connections, against a real pushagentd started with a low
/// open-file soft limit (256, hard 2048), a 1 s request deadline and 16 connections per uid.
@Suite("control socket connection limits", .serialized)
struct ControlConnectionLimitTests {
    static let nobody: UInt32 = 65534
    static let perUID = 16

    /// A pushagentd with no relay to reach: the control socket is all these tests use.
    final class Daemon {
        let directory: String
        let process: ManagedProcess
        let unreachableRelay: ReservedLoopbackPort
        var socketPath: String { directory + "/agent.sock" }
        /// Its own libcurl connection cache, so no other test's pooled connections mix in.
        let http = CurlHTTPClient()
        var client: ControlClient { ControlClient(socketPath: socketPath, http: http, timeout: .seconds(5)) }

        init() async throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushagent-fd-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            unreachableRelay = try ReservedLoopbackPort()
            process = try ManagedProcess(
                name: "pushagentd", executable: "/usr/bin/prlimit",
                arguments: ["--nofile=256:2048", "--", Binaries.path("pushagentd"), "--state-dir", directory + "/state",
                            "--socket", directory + "/agent.sock", "--relay", "http://127.0.0.1:\(unreachableRelay.port)"],
                environment: ["PUSHAGENT_CONTROL_REQUEST_TIMEOUT_SECONDS": "1",
                              "PUSHAGENT_CONTROL_CONNECTIONS_PER_UID": "\(ControlConnectionLimitTests.perUID)"])
            let client = client
            try await eventually("pushagentd answers on its socket", timeout: .seconds(20)) {
                guard process.isRunning else { throw HarnessError("pushagentd exited:\n\(process.text)") }
                return (try? await client.status()) != nil
            }
        }

        func stop() async {
            await process.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }

        /// Runs `body` with a new daemon and stops it afterwards; when `body` fails, the daemon's output is printed.
        static func run(_ body: (Daemon) async throws -> Void) async throws {
            let daemon = try await Daemon()
            do {
                try await body(daemon)
            } catch {
                print("pushagentd output:\n\(daemon.process.text)")
                await daemon.stop()
                throw error
            }
            await daemon.stop()
        }
    }

    @Test(.enabled(if: getuid() == 0, "runs pushctl as another user, which needs root"))
    func aFloodOfIdleConnectionsLocksNoOtherUserOutAndIsClosed() async throws {
        try await Daemon.run { daemon in
            // Started with a soft limit of 256: pushagentd takes the hard limit, as a plain start from a shell would.
            #expect(ProcessDescriptors.softLimit(pid: daemon.process.pid) == 2048)
            chmod(daemon.directory, 0o755)
            chmod(daemon.socketPath, 0o666)

            // Root fills its bound with event streams: being answered, they are not idle and stay open. (Until the
            // start-up check's keep-alive connection is closed by the deadline, it holds a place: retry those refused.)
            var streams: [RawConnection] = []
            try await eventually("root holds \(Self.perUID) event streams", timeout: .seconds(10)) {
                streams.removeAll { $0.isClosedByServer }
                while streams.count < Self.perUID {
                    let stream = try RawConnection(unixPath: daemon.socketPath)
                    stream.send("GET /v1/events HTTP/1.1\r\nHost: pushagentd\r\n\r\n")
                    streams.append(stream)
                }
                try await Task.sleep(for: .milliseconds(300))
                return !streams.contains { $0.isClosedByServer }
            }
            let clock = ContinuousClock()
            var start = clock.now
            try await eventually("root's connections beyond its bound are refused", timeout: .seconds(10)) {
                do {
                    _ = try await daemon.client.status()
                    return false
                } catch ControlClientError.api(status: 503, let body) {
                    #expect(body.code == .unavailable)
                    #expect(body.message.contains("uid 0 already has \(Self.perUID) connections open"), "\(body.message)")
                    #expect(body.message.contains("control_connections_per_uid"), "\(body.message)")
                    return true
                }
            }

            // Then more idle connections than the soft limit pushagentd was started with, from the same uid.
            var flood: [RawConnection] = []
            for _ in 0..<600 { flood.append(try RawConnection(unixPath: daemon.socketPath)) }
            start = clock.now
            let other = try await CommandResult.run("/usr/bin/timeout", [
                "10", "/usr/bin/setpriv", "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups",
                Binaries.path("pushctl"), "--socket", daemon.socketPath, "status"])
            #expect(other.status == 0, "another user's pushctl answers: \(other.stderr)")
            #expect(clock.now - start < .seconds(5), "promptly")

            // Silent connections are closed (refused ones 1 s after they opened); the streams go on.
            for connection in flood {
                #expect(try await connection.readUntilClosed(timeout: .seconds(8)) == "")
            }
            flood.removeAll()
            #expect(!streams.contains { $0.isClosedByServer })
            streams.removeAll()
            try await eventually("root may connect again once its streams closed", timeout: .seconds(10)) {
                (try? await daemon.client.status()) != nil
            }
        }
    }

    @Test func anIdleConnectionIsClosedAfterTheDeadlineAndAnsweringDoesNotCount() async throws {
        try await Daemon.run { daemon in
            let clock = ContinuousClock()
            let start = clock.now
            let idle = try RawConnection(unixPath: daemon.socketPath)
            let trickling = try RawConnection(unixPath: daemon.socketPath)
            trickling.send("GET /v1/status HTTP/1.1\r\n")
            let events = try RawConnection(unixPath: daemon.socketPath)
            events.send("GET /v1/events HTTP/1.1\r\nHost: pushagentd\r\n\r\n")

            #expect(try await idle.readUntilClosed(timeout: .seconds(8)) == "")
            #expect(try await trickling.readUntilClosed(timeout: .seconds(8)) == "")
            #expect(clock.now - start >= .milliseconds(900), "not before the deadline")
            // An event stream is being answered, however long: the request deadline is not an answer deadline.
            try await Task.sleep(for: .milliseconds(1500))
            #expect(!events.isClosedByServer)
        }
    }

    @Test func bodiesOverTheLimitCutShortOrStalledGetClearErrors() async throws {
        try await Daemon.run { daemon in
            let head = "POST /v1/accounts HTTP/1.1\r\nHost: pushagentd\r\nContent-Type: application/json\r\n"

            let oversized = try RawConnection(unixPath: daemon.socketPath)
            oversized.send(head + "Content-Length: 70000\r\n\r\n{\"uri\": \"")
            let tooLarge = try #require(try await oversized.readUntilClosed(timeout: .seconds(8)))
            #expect(tooLarge.hasPrefix("HTTP/1.1 413"), "\(tooLarge)")
            #expect(tooLarge.contains(#""code":"invalid_argument""#) && tooLarge.contains("larger than 65536 bytes"), "\(tooLarge)")

            let streamed = try RawConnection(unixPath: daemon.socketPath)
            streamed.send(head + "Transfer-Encoding: chunked\r\n\r\n")
            for _ in 0..<9 { streamed.send("2000\r\n" + String(repeating: " ", count: 0x2000) + "\r\n") }
            let streamedTooLarge = try #require(try await streamed.readUntilClosed(timeout: .seconds(8)))
            #expect(streamedTooLarge.hasPrefix("HTTP/1.1 413"), "without a Content-Length too: \(streamedTooLarge)")

            let cutShort = try RawConnection(unixPath: daemon.socketPath)
            cutShort.send(head + "Content-Length: 100\r\n\r\n{\"uri\": ")
            cutShort.shutdownWrite()
            let incomplete = try #require(try await cutShort.readUntilClosed(timeout: .seconds(8)))
            #expect(incomplete.hasPrefix("HTTP/1.1 400"), "\(incomplete)")
            #expect(incomplete.contains("incomplete") && incomplete.contains("100 bytes"), "\(incomplete)")

            let stalled = try RawConnection(unixPath: daemon.socketPath)
            stalled.send(head + "Content-Length: 100\r\n\r\n{\"uri\": ")
            let timedOut = try #require(try await stalled.readUntilClosed(timeout: .seconds(8)))
            #expect(timedOut.hasPrefix("HTTP/1.1 400"), "\(timedOut)")
            #expect(timedOut.contains("1 s passed"), "\(timedOut)")
        }
    }
}
