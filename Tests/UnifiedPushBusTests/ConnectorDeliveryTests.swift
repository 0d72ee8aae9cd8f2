import ClusterHarness
import Foundation
import Synchronization
import Testing
import UnifiedPushBus

/// The distributor calling real connector processes: running, started by the bus, missing, or silent.
@Suite("UnifiedPushBus: calls to the apps' connectors", .timeLimit(.minutes(3)),
       .enabled(if: sessionBusAvailable, "needs dbus-daemon and dbus-send (Debian: dbus-daemon, dbus-bin)"))
struct ConnectorDeliveryTests {
    /// Every byte value, and a body of the spec's largest size.
    static let bodies: [Data] = [Data((0...255).map { UInt8($0) }),
                                 Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ $0 >> 3) })]

    @Test func messagesArriveByteForByteInBothVersions() async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            defer { bus.stop() }
            let log = session.directory + "/calls.jsonl"
            let connector = try await UnifiedPushConnector.serve(["org.example.One", "org.example.Two"], log: log, on: session)
            defer { connector.signal(SIGTERM) }
            var expected: [UnifiedPushConnector.LoggedCall] = []
            for (index, body) in Self.bodies.enumerated() {
                for (service, version) in [("org.example.One", ConnectorVersion.v1), ("org.example.Two", .v2)] {
                    let id = "message-\(index)-\(version.rawValue)"
                    let delivery = await bus.message(to: service, version: version, token: "token-\(service)", body: body,
                                                     id: id, timeout: .seconds(30))
                    #expect(delivery == .delivered, "\(id)")
                    expected.append(UnifiedPushConnector.LoggedCall(
                        service: service, interface: "org.unifiedpush.Connector\(version.rawValue)", method: "Message",
                        token: "token-\(service)", message_b64: body.base64EncodedString(), id: id, endpoint: nil))
                }
            }
            // Logged before the app replied, so there once delivered.
            let logged = UnifiedPushConnector.loggedCalls(log)
            #expect(logged == expected)
            #expect(logged.map(\.body) == expected.map(\.body))
        }
    }

    @Test(arguments: [ConnectorVersion.v1, .v2]) func newEndpointAndUnregisteredArrive(version: ConnectorVersion) async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            defer { bus.stop() }
            let log = session.directory + "/calls.jsonl"
            let connector = try await UnifiedPushConnector.serve(["org.example.App"], log: log, on: session)
            defer { connector.signal(SIGTERM) }
            #expect(await bus.newEndpoint(to: "org.example.App", version: version, token: "t", endpoint: "https://e/1")
                        == .delivered)
            #expect(await bus.unregistered(to: "org.example.App", version: version, token: "t") == .delivered)
            let interface = "org.unifiedpush.Connector\(version.rawValue)"
            #expect(UnifiedPushConnector.loggedCalls(log) == [
                UnifiedPushConnector.LoggedCall(service: "org.example.App", interface: interface, method: "NewEndpoint", token: "t",
                                     message_b64: nil, id: nil, endpoint: "https://e/1"),
                UnifiedPushConnector.LoggedCall(service: "org.example.App", interface: interface, method: "Unregistered", token: "t",
                                     message_b64: nil, id: nil, endpoint: nil),
            ])
        }
    }

    @Test func anInstalledAppThatIsNotRunningIsStartedByTheBus() async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            defer { bus.stop() }
            let log = session.directory + "/activated.jsonl"
            try await UnifiedPushConnector.install()
            try session.installConnector("org.example.Activated", log: log)
            #expect(try await bus.isInstalled("org.example.Activated"))
            let body = Data("hello".utf8)
            // Long enough for the bus to start Python on a loaded machine.
            let delivery = await bus.message(to: "org.example.Activated", version: .v2, token: "t", body: body, id: "a1",
                                             timeout: .seconds(150))
            #expect(delivery == .delivered)
            #expect(UnifiedPushConnector.loggedCalls(log).map(\.body) == [body])
            #expect(try await bus.isInstalled("org.example.Activated"))
        }
    }

    @Test func anAppNeitherRunningNorInstalledIsNotFound() async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            defer { bus.stop() }
            #expect(try await !bus.isInstalled("org.example.Missing"))
            for version in [ConnectorVersion.v1, .v2] {
                let delivery = await bus.message(to: "org.example.Missing", version: version, token: "t",
                                                 body: Data([1]), id: "m", timeout: .seconds(10))
                guard case .appNotFound(let text) = delivery else {
                    Issue.record("\(version): \(delivery)")
                    continue
                }
                #expect(text.contains("org.freedesktop.DBus.Error.ServiceUnknown"))
            }
            await #expect(throws: DistributorBusError.self) { try await bus.isInstalled("not a name") }
        }
    }

    @Test func anAppThatNeverRepliesFailsAfterTheTimeout() async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            defer { bus.stop() }
            let log = session.directory + "/calls.jsonl"
            let connector = try await UnifiedPushConnector.serve(["org.example.Silent"], log: log, on: session,
                                                      extra: ["--no-reply"])
            defer { connector.signal(SIGTERM) }
            let started = ContinuousClock.now
            let delivery = await bus.message(to: "org.example.Silent", version: .v2, token: "t", body: Data([1]),
                                             id: "s", timeout: .seconds(1))
            let waited = ContinuousClock.now - started
            guard case .failed(let text) = delivery else {
                Issue.record("a silent app's call ended as \(delivery)")
                return
            }
            #expect(text.contains("org.freedesktop.DBus.Error.NoReply") || text.contains("Timeout"), "\(text)")
            #expect(waited >= .milliseconds(900) && waited < .seconds(20), "\(waited)")
            #expect(UnifiedPushConnector.loggedCalls(log).count == 1)
        }
    }

    /// A slow app does not hold up another: the bus thread waits for neither.
    @Test func aSlowAppDoesNotHoldUpAnother() async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            defer { bus.stop() }
            let slow = try await UnifiedPushConnector.serve(["org.example.Slow"], log: session.directory + "/slow.jsonl", on: session,
                                                 extra: ["--reply-delay", "5"])
            defer { slow.signal(SIGTERM) }
            let fast = try await UnifiedPushConnector.serve(["org.example.Fast"], log: session.directory + "/fast.jsonl", on: session)
            defer { fast.signal(SIGTERM) }
            let slowDone = AnsweredFlag()
            let slowDelivery = Task {
                let delivery = await bus.message(to: "org.example.Slow", version: .v2, token: "t", body: Data([1]),
                                                 id: "slow", timeout: .seconds(30))
                slowDone.value.withLock { $0 = true }
                return delivery
            }
            try await eventually("the slow app has the message") {
                UnifiedPushConnector.loggedCalls(session.directory + "/slow.jsonl").count == 1
            }
            #expect(await bus.message(to: "org.example.Fast", version: .v1, token: "t", body: Data([2]), id: "fast",
                                      timeout: .seconds(30)) == .delivered)
            #expect(!slowDone.value.withLock { $0 }, "the slow app answered first")
            #expect(await slowDelivery.value == .delivered)
        }
    }
}

/// Set when a call has come back, for another task to look at.
private final class AnsweredFlag: Sendable {
    let value = Mutex(false)
}
