import ClusterHarness
import Foundation
import Testing
import UnifiedPushBus

@Suite("UnifiedPushBus: the distributor's name and connection", .timeLimit(.minutes(3)),
       .enabled(if: sessionBusAvailable, "needs dbus-daemon and dbus-send (Debian: dbus-daemon, dbus-bin)"))
struct BusLifecycleTests {
    @Test func aTakenNameIsRefusedWithTheOwnerNamed() async throws {
        try await withSessionBus { session in
            let first = try await DistributorBus.connect(address: session.address)
            do {
                _ = try await DistributorBus.connect(address: session.address)
                Issue.record("a second distributor took the name")
            } catch let error as DistributorBusError {
                #expect(error.description.contains(
                    "another UnifiedPush distributor owns org.unifiedpush.Distributor.pushagent (connection :1."))
                #expect(error.description.contains("pid \(getpid())"))
            }
            // Stopping releases the name for the next one.
            first.stop()
            var second: DistributorBus?
            try await eventually("the name is free again") {
                second = try? await DistributorBus.connect(address: session.address)
                return second != nil
            }
            second?.stop()
        }
    }

    @Test func introspectionNamesBothInterfacesAndUnknownMethodsAreRefused() async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            defer { bus.stop() }
            let xml = try await dbusSend(session, ["org.freedesktop.DBus.Introspectable.Introspect"])
            #expect(xml.status == 0)
            for name in ["org.unifiedpush.Distributor1", "org.unifiedpush.Distributor2",
                         "org.freedesktop.DBus.Introspectable"] {
                #expect(xml.stdout.contains("<interface name=\"\(name)\">"), "\(name) in \(xml.stdout)")
            }
            let unknown = try await dbusSend(session, ["org.unifiedpush.Distributor2.Subscribe"])
            #expect(unknown.status != 0)
            #expect(unknown.stderr.contains("org.freedesktop.DBus.Error.UnknownMethod"), "\(unknown.stderr)")
            let ping = try await dbusSend(session, ["org.freedesktop.DBus.Peer.Ping"])
            #expect(ping.status == 0, "\(ping.stderr)")
        }
    }

    @Test func callsFinishWhenTheBusDaemonDies() async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            let collector = CallCollector(bus)
            await session.kill()
            try await eventually("calls finishes") { collector.ended }
            let delivery = await bus.newEndpoint(to: "org.example.Gone", version: .v2, token: "t", endpoint: "https://e")
            guard case .failed = delivery else {
                Issue.record("a call on a lost connection ended as \(delivery)")
                return
            }
            await #expect(throws: DistributorBusError.self) { try await bus.isInstalled("org.example.Gone") }
        }
    }

    @Test func stopFinishesCalls() async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            let collector = CallCollector(bus)
            bus.stop()
            try await eventually("calls finishes") { collector.ended }
        }
    }

    /// An answer given after the connection closed has nowhere to go; it must release the call and nothing more.
    @Test func anAnswerAfterStopIsDroppedSafely() async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            let collector = CallCollector(bus)
            async let registered = UnifiedPushConnector.register("org.example.App", token: "late", version: 2, on: session)
            let (_, answer) = try await collector.nextRegister()
            bus.stop()
            try await eventually("calls finishes") { collector.ended }
            answer(nil)
            // The app saw the distributor leave without answering.
            #expect(try await registered.error == "org.freedesktop.DBus.Error.NoReply")
        }
    }

    @Test func noBusIsAClearError() async throws {
        do {
            _ = try await DistributorBus.connect(address: "unix:path=/nonexistent/unifiedpush-test-bus")
            Issue.record("connected to a bus that is not there")
        } catch let error as DistributorBusError {
            #expect(error.description.contains("cannot serve org.unifiedpush.Distributor.pushagent on the session bus"))
        }
    }
}

/// dbus-send to the test's distributor object.
func dbusSend(_ session: PrivateSessionBus, _ arguments: [String]) async throws -> CommandResult {
    try await CommandResult.run("/usr/bin/dbus-send", ["--bus=\(session.address)", "--print-reply",
                                                       "--dest=\(testDistributor)", "/org/unifiedpush/Distributor"]
                                    + arguments)
}
