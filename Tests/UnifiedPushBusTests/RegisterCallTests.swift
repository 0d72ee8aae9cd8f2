import ClusterHarness
import Foundation
import Testing
import UnifiedPushBus

/// Register and Unregister from a real connector process, in both versions of the interface.
@Suite("UnifiedPushBus: apps' Register and Unregister", .timeLimit(.minutes(3)),
       .enabled(if: sessionBusAvailable, "needs dbus-daemon and dbus-send (Debian: dbus-daemon, dbus-bin)"))
struct RegisterCallTests {
    /// An uncompressed P-256 point's shape (0x04 and 64 bytes) in base64url: what the distributor checks a key for.
    static let vapid = "B" + String(repeating: "A", count: 86)

    @Test(arguments: [1, 2]) func aRegistrationReachesCallsAndTheAppGetsItsEndpoint(version: Int) async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            defer { bus.stop() }
            let collector = CallCollector(bus)
            let service = "org.example.Chat\(version)"
            async let registered = UnifiedPushConnector.register(service, token: "token-\(version)", version: version, on: session,
                                                      extra: ["--description", "Chat for alice", "--vapid", Self.vapid,
                                                              "--wait-endpoint", "60"])
            let (call, answer) = try await collector.nextRegister()
            #expect(call.service == service)
            #expect(call.token == "token-\(version)")
            #expect(call.description == "Chat for alice")
            #expect(call.version.rawValue == version)
            #expect(call.sender.hasPrefix(":1."))
            // Connector1's Register has no VAPID key to pass.
            #expect(call.vapid == (version == 2 ? Self.vapid : nil))
            answer(nil)
            answer(.network)  // a second answer is ignored
            let endpoint = "https://push.example.net/wpush/\(version)"
            #expect(await bus.newEndpoint(to: service, version: call.version, token: call.token, endpoint: endpoint)
                        == .delivered)
            let result = try await registered
            #expect(result.success == "REGISTRATION_SUCCEEDED")
            #expect(result.reason == nil)
            #expect(result.endpoint == endpoint)
        }
    }

    @Test func eachFailureReachesTheAppInBothVersions() async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            defer { bus.stop() }
            let collector = CallCollector(bus)
            let failures: [RegistrationFailure] = [.internalError, .network, .actionRequired, .vapidRequired]
            let cases = failures.flatMap { failure in [1, 2].map { (failure, $0) } }
            try await withThrowingTaskGroup(of: (String, UnifiedPushConnector.Result).self) { group in
                for (failure, version) in cases {
                    let token = "\(failure.rawValue)-\(version)"
                    group.addTask {
                        (token, try await UnifiedPushConnector.register("org.example.App", token: token, version: version, on: session))
                    }
                }
                for _ in cases {
                    let (call, answer) = try await collector.nextRegister()
                    answer(failures.first { call.token.hasPrefix($0.rawValue) })
                }
                for try await (token, result) in group {
                    #expect(result.success == "REGISTRATION_FAILED", "\(token)")
                    #expect(token.hasPrefix(result.reason ?? "?"), "\(token): \(result)")
                }
            }
        }
    }

    @Test func aCallDroppedUnansweredFailsWithInternalError() async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            defer { bus.stop() }
            let collector = CallCollector(bus)
            async let registered = UnifiedPushConnector.register("org.example.App", token: "dropped", version: 2, on: session)
            _ = try await collector.next()  // taken and let go
            let result = try await registered
            #expect(result.success == "REGISTRATION_FAILED")
            #expect(result.reason == "INTERNAL_ERROR")
        }
    }

    /// Each is refused on the bus with InvalidArgs saying why (the last item), and none reaches `calls`.
    static let malformed: [(token: String, version: Int, extra: [String], why: String)] = [
        ("", 2, [], "the token is empty"),
        (String(repeating: "t", count: 101), 1, [], "the token is 101 bytes long; the spec allows at most 100"),
        (String(repeating: "é", count: 51), 2, [], "the token is 102 bytes long"),
        ("token", 1, ["--service-override", "not a bus name"], "the service \"not a bus name\" is not a valid bus name"),
        ("token", 2, ["--service-override", ":1.5"], "is a unique connection name"),
        ("token", 2, ["--service-override", "org.3example.App"], "an element starts with a digit"),
        ("token", 2, ["--vapid", "BAAA"], "the vapid key must be 87 characters of unpadded base64url"),
        ("token", 2, ["--vapid", String(repeating: "A", count: 87)], "does not decode to an uncompressed P-256 public key"),
        ("token", 2, ["--omit", "token"], "the field \"token\" (s) is missing"),
        ("token", 2, ["--omit", "service"], "the field \"service\" (s) is missing"),
        ("token", 2, ["--field", "token=u:7"], "the field \"token\" must hold a string (s), not (u)"),
        ("token", 2, ["--field", "description=u:7"], "the field \"description\" must hold a string (s), not (u)"),
    ]

    @Test func malformedRegistrationsAreRefusedAndNeverSurface() async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            defer { bus.stop() }
            let collector = CallCollector(bus)
            for (token, version, extra, why) in Self.malformed {
                var service = "org.example.App"
                var rest = extra
                if let index = rest.firstIndex(of: "--service-override") {
                    service = rest[index + 1]
                    rest.removeSubrange(index...index + 1)
                }
                let result = try await UnifiedPushConnector.register(service, token: token, version: version, on: session,
                                                          extra: rest)
                #expect(result.error == "org.freedesktop.DBus.Error.InvalidArgs", "\(extra): \(result)")
                #expect(result.message?.contains(why) == true, "\(extra): \(result)")
            }
            // Distributor1's Register with two arguments, not three.
            let short = try await dbusSend(session, ["org.unifiedpush.Distributor1.Register", "string:org.example.App",
                                                     "string:token"])
            #expect(short.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(short.stderr)")
            #expect(short.stderr.contains("takes (sss)"), "\(short.stderr)")
            // The next well-formed call is the first the distributor sees.
            async let registered = UnifiedPushConnector.register("org.example.App", token: "good", version: 2, on: session)
            let (call, answer) = try await collector.nextRegister()
            #expect(call.token == "good")
            answer(nil)
            #expect(try await registered.success == "REGISTRATION_SUCCEEDED")
            #expect(collector.waiting == 0)
        }
    }

    @Test func aLongDescriptionIsCutAtACharacter() async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            defer { bus.stop() }
            let collector = CallCollector(bus)
            let description = String(repeating: "a", count: 99) + "éé"
            async let registered = UnifiedPushConnector.register("org.example.App", token: "long", version: 1, on: session,
                                                      extra: ["--description", description])
            let (call, answer) = try await collector.nextRegister()
            #expect(call.description == String(repeating: "a", count: 99))
            answer(nil)
            _ = try await registered
        }
    }

    @Test(arguments: [1, 2]) func unregisterReachesCallsAndIsAnswered(version: Int) async throws {
        try await withSessionBus { session in
            let bus = try await DistributorBus.connect(address: session.address)
            defer { bus.stop() }
            let collector = CallCollector(bus)
            async let unregistered = UnifiedPushConnector.run(["unregister", "--distributor", testDistributor, "--token", "old",
                                                    "--version", "\(version)"], on: session)
            let (call, answer) = try await collector.nextUnregister()
            #expect(call.token == "old")
            #expect(call.version.rawValue == version)
            #expect(call.sender.hasPrefix(":1."))
            answer()
            #expect(try await unregistered.unregistered == true)
            // Distributor1's Unregister is NoReply-annotated: a caller asking for no reply is served all the same.
            let quiet = try await UnifiedPushConnector.run(["unregister", "--distributor", testDistributor, "--token", "quiet",
                                                 "--version", "\(version)", "--no-reply-expected"], on: session)
            #expect(quiet.unregistered == true)
            let (quietCall, quietAnswer) = try await collector.nextUnregister()
            #expect(quietCall.token == "quiet")
            quietAnswer()
        }
    }
}
