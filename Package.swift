// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

/// The dependencies' products that several targets use, each spelled once.
extension Target.Dependency {
    static let argumentParser = product(name: "ArgumentParser", package: "swift-argument-parser")
    static let hummingbird = product(name: "Hummingbird", package: "hummingbird")
    static let serviceLifecycle = product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
    static let grdb = product(name: "GRDB", package: "GRDB.swift")
    static let crypto = product(name: "Crypto", package: "swift-crypto")
    static let logging = product(name: "Logging", package: "swift-log")
    static let cryptoExtras = product(name: "CryptoExtras", package: "swift-crypto")
    static let nioPosix = product(name: "NIOPosix", package: "swift-nio")
    static let nioHTTP1 = product(name: "NIOHTTP1", package: "swift-nio")
    static let nioCore = product(name: "NIOCore", package: "swift-nio")
    static let jwtKit = product(name: "JWTKit", package: "jwt-kit")
    static let httpTypes = product(name: "HTTPTypes", package: "swift-http-types")
    static let tomlKit = product(name: "TOMLKit", package: "TOMLKit")
    static let swiftProtobuf = product(name: "SwiftProtobuf", package: "swift-protobuf")
    static let openAPIRuntime = product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")
    static let nioSSL = product(name: "NIOSSL", package: "swift-nio-ssl")
    static let nioHTTPTypes = product(name: "NIOHTTPTypes", package: "swift-nio-extras")
    static let nioEmbedded = product(name: "NIOEmbedded", package: "swift-nio")
}

let package = Package(
    name: "pushagent",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pushagentd", targets: ["pushagentd"]),
        .executable(name: "pushctl", targets: ["pushctl"]),
        .executable(name: "pushrelay", targets: ["pushrelay"]),
        .executable(name: "pushsim", targets: ["pushsim"]),
        .executable(name: "pushbench", targets: ["pushbench"]),
        .executable(name: "pushsoak", targets: ["pushsoak"]),
        // Step-up MFA for local programs (docs/stepup.md); the OpenAPI adapter apart, so plain users skip its packages.
        .library(name: "PushAgentKit", targets: ["PushAgentKit"]),
        .library(name: "PushAgentKitOpenAPI", targets: ["PushAgentKitOpenAPI"]),
        // The relay's device API for other clients of pushrelay (and the fuzz targets, a package of their own).
        .library(name: "RelayWire", targets: ["RelayWire"]),
        // Web Push as the relay reads it from senders (and the fuzz targets).
        .library(name: "WebPushWire", targets: ["WebPushWire"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // The relay's shared storage for several instances (docs/relay.md, "PostgreSQL: several instances").
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // FCM's MCS and check-in messages (the generated code is committed: `make proto` regenerates it).
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
        // TLS of FCM's MCS connection (the agent's receiver, pushsim's emulator).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        // C bindings
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // Linux-PAM: the local user verification that approvals of kind verify need.
        .systemLibrary(name: "CPAM", pkgConfig: "pam", providers: [.apt(["libpam0g-dev"])]),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),
        // An sd-bus connection's thread turn and its eventfd wake-up, for the shims below (SessionBusThread runs them).
        .target(name: "CSessionBusLoop", linkerSettings: [.linkedLibrary("systemd")]),
        // sd-bus calls of the desktop notifier (libsystemd, like CSystemd): typed, since sd-bus is variadic.
        .target(name: "CNotifyBus", linkerSettings: [.linkedLibrary("systemd")]),
        // sd-bus for the UnifiedPush distributor: apps' calls and calls to their connectors, typed for the same reason.
        .target(name: "CUnifiedPushBus", linkerSettings: [.linkedLibrary("systemd")]),
        // polkit's CheckAuthorization over sd-bus, for approvals of kind verify (typed for the same reason).
        .target(name: "CPolkit", linkerSettings: [.linkedLibrary("systemd")]),
        .target(name: "CQRImage", linkerSettings: [.linkedLibrary("zbar"), .linkedLibrary("png16"), .linkedLibrary("jpeg")]),

        // Pure logic: models, router, provider decoding/verification/answers, OTP, URI parsing. No I/O.
        .target(name: "PushAgentCore", dependencies: [
            "RelayWire", .jwtKit, .crypto,
            // RSA keys for PlusAuth's RS256 (jwt-kit builds on the same module), and their PKCS#1 DER for JWK export.
            .cryptoExtras, .product(name: "SwiftASN1", package: "swift-asn1"), .swiftProtobuf,
        ], swiftSettings: swiftSettings),
        // The one HTTP client (libcurl): daemon outbound calls, pushsim sends, pushctl over the socket.
        .target(name: "CurlHTTP", dependencies: ["CCurl"], swiftSettings: swiftSettings),
        // The control API's wire: messages, JSON coding, socket path, version. No transport: the daemon serves it.
        .target(name: "ControlWire", dependencies: ["PushAgentCore"], swiftSettings: swiftSettings),
        // The client library pushctl is a face over: the control API over the Unix socket, through libcurl.
        .target(name: "ControlClient", dependencies: ["ControlWire", "CurlHTTP", "PushAgentCore"], swiftSettings: swiftSettings),
        // sd_notify, journald log handler.
        .target(name: "SystemdSupport", dependencies: [
            "CSystemd", .logging,
        ], swiftSettings: swiftSettings),
        // What both HTTP servers (control socket, relay) guard connections with: request deadlines and the fd limit.
        .target(name: "ConnectionGuards", dependencies: [
            .nioCore, .nioHTTP1, .nioHTTPTypes,
        ], swiftSettings: swiftSettings),
        // The relay's device API as both sides see it: a delivered message, a poll's reply, a registration.
        .target(name: "RelayWire", swiftSettings: swiftSettings),
        // Web Push as the relay's senders speak it (RFC 8030, RFC 8292): a push request's headers and VAPID. No I/O.
        .target(name: "WebPushWire", dependencies: [.crypto, .httpTypes], swiftSettings: swiftSettings),
        // Writes to SQLite through GRDB that the relay and the agent share.
        .target(name: "SQLiteWrites", dependencies: [.grdb],
                swiftSettings: swiftSettings),
        // The agent's SQLite state.
        .target(name: "PushAgentStore", dependencies: [
            "PushAgentCore", "RelayWire", "SQLiteWrites", .grdb, .crypto,
        ], swiftSettings: swiftSettings),
        // pushagentd's services: config, relay loop, handlers, responders, control server.
        .target(name: "PushAgentDaemon", dependencies: [
            "PushAgentCore", "PushAgentStore", "ControlWire", "RelayWire", "CurlHTTP", "SystemdSupport", "ConnectionGuards", "CPAM",
            "CPolkit", .hummingbird, .product(name: "HummingbirdCore", package: "hummingbird"), .nioCore,
            .product(name: "NIOTLS", package: "swift-nio"), .nioPosix, .nioHTTP1,
            .product(name: "NIOExtras", package: "swift-nio-extras"), .nioHTTPTypes, .nioSSL, .serviceLifecycle,
            .product(name: "UnixSignals", package: "swift-service-lifecycle"), .logging, .tomlKit,
        ], swiftSettings: swiftSettings),
        // The relay: device registration, long-poll, FCM-v1-compatible send API, the OAuth2 token endpoint.
        .target(name: "PushRelay", dependencies: [
            "RelayWire", "WebPushWire", "SQLiteWrites", "SystemdSupport", "ConnectionGuards", .nioCore, .nioPosix, .nioHTTP1,
            .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"), .httpTypes, .jwtKit, .crypto,
            .cryptoExtras, .grdb, .product(name: "PostgresNIO", package: "postgres-nio"),
            // Its ConnectionPoolError: a pool that stopped trying to connect says so with it, not a PSQLError.
            .product(name: "_ConnectionPoolModule", package: "postgres-nio"), .serviceLifecycle, .logging, .tomlKit,
        ], swiftSettings: swiftSettings),
        // The IdP emulator.
        .target(name: "PushSim", dependencies: [
            "PushAgentCore", "CurlHTTP", "ConnectionGuards", .hummingbird, .swiftProtobuf, .nioSSL, .nioPosix,
            .serviceLifecycle, .logging,
        ], swiftSettings: swiftSettings),

        // `pushctl enroll --qr IMAGE`: PNG/JPEG → libzbar.
        .target(name: "QRImage", dependencies: ["CQRImage"], swiftSettings: swiftSettings),

        // The programs' shared entry point (exit codes of DESIGN.md §5/§6.1).
        .target(name: "CommandSupport", dependencies: [
            .argumentParser,
        ], swiftSettings: swiftSettings),
        // The step-up challenge retrier and its flows (pushagentd over the control socket, the terminal). No NIO.
        .target(name: "PushAgentKit", dependencies: ["CurlHTTP", "ControlClient", "ControlWire"], swiftSettings: swiftSettings),
        .target(name: "PushAgentKitOpenAPI", dependencies: [
            "PushAgentKit", .openAPIRuntime, .httpTypes,
        ], swiftSettings: swiftSettings),
        // Starts the real programs on loopback for the integration tests and the benchmark.
        .target(name: "ClusterHarness", dependencies: ["CurlHTTP", "ControlClient", "ControlWire", "PushSim"], swiftSettings: swiftSettings),

        // Thin executables
        .executableTarget(name: "pushagentd", dependencies: [
            "CommandSupport", "ControlWire", "PushAgentDaemon", .argumentParser,
        ], swiftSettings: swiftSettings),
        // `pushctl notify`: approvals as desktop notifications with action buttons, on the user's session bus.
        .target(name: "DesktopNotify", dependencies: ["CNotifyBus", "SessionBusThread", "ControlWire", "PushAgentCore"],
                swiftSettings: swiftSettings),
        // The thread that owns an sd-bus connection and the queue of work for it (NotificationBus, DistributorBus).
        .target(name: "SessionBusThread", dependencies: ["CSessionBusLoop"], swiftSettings: swiftSettings),
        // pushagentd as a UnifiedPush distributor on the session bus: the apps' calls and the calls to their connectors.
        .target(name: "UnifiedPushBus", dependencies: ["CUnifiedPushBus", "SessionBusThread"],
                swiftSettings: swiftSettings),
        // `pushctl webpush distributor`: those calls served from the daemon's control API, as the session's user.
        .target(name: "UnifiedPushDistributor", dependencies: ["UnifiedPushBus", "ControlClient", "ControlWire", "PushAgentCore"],
                swiftSettings: swiftSettings),
        .executableTarget(name: "pushctl", dependencies: [
            "ControlClient", "ControlWire", "CurlHTTP", "PushAgentCore", "CommandSupport", "QRImage", "DesktopNotify",
            "UnifiedPushBus", "UnifiedPushDistributor", .argumentParser,
        ], swiftSettings: swiftSettings),
        .executableTarget(name: "pushrelay", dependencies: [
            "CommandSupport", "PushRelay", .argumentParser,
        ], swiftSettings: swiftSettings),
        .executableTarget(name: "pushsim", dependencies: [
            "CommandSupport", "ConnectionGuards", "PushSim", .argumentParser,
        ], swiftSettings: swiftSettings),
        .executableTarget(name: "pushbench", dependencies: [
            "ClusterHarness", "ControlClient", "ControlWire", "CommandSupport", "PushSim", .argumentParser,
        ], swiftSettings: swiftSettings),
        // `make soak`: relay and daemon SIGKILLed, a fault proxy between them; fails on a lost or doubled push.
        .executableTarget(name: "pushsoak", dependencies: [
            "ClusterHarness", "ControlClient", "ControlWire", "CommandSupport", "PushAgentCore", .argumentParser,
        ], swiftSettings: swiftSettings),
        // Step-up examples: a client through the retrier, and a protected server that challenges it.
        .executableTarget(name: "stepup-example", dependencies: [
            "PushAgentKit", "CurlHTTP", .argumentParser,
        ], path: "Examples/stepup-example", swiftSettings: swiftSettings),
        .executableTarget(name: "stepup-server", dependencies: [
            "PushAgentCore", .hummingbird, .argumentParser,
        ], path: "Examples/stepup-server", swiftSettings: swiftSettings),

        // Tests
        .testTarget(name: "PushAgentCoreTests", dependencies: [
            // ClusterHarness: oathtool and python3 started without Foundation's Process (Spawn says why).
            "PushAgentCore", "ClusterHarness", .cryptoExtras,
        ], swiftSettings: swiftSettings),
        // An in-process Hummingbird server for the HTTP clients' tests.
        .target(name: "HTTPTestSupport", dependencies: [
            .hummingbird, .serviceLifecycle,
        ],
                path: "Tests/HTTPTestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "CurlHTTPTests", dependencies: [
            "ClusterHarness", "CurlHTTP", "HTTPTestSupport", .hummingbird,
        ], swiftSettings: swiftSettings),
        .testTarget(name: "PushRelayTests", dependencies: [
            // ClusterHarness: the private PostgreSQL the relay's tests run on besides SQLite.
            "PushRelay", "RelayWire", "CurlHTTP", "ClusterHarness", .jwtKit, .grdb, .crypto, .cryptoExtras,
            .nioEmbedded,
        ], swiftSettings: swiftSettings),
        .testTarget(name: "DesktopNotifyTests", dependencies: ["DesktopNotify", "PushAgentCore"],
                    swiftSettings: swiftSettings),
        // A private dbus-daemon and the Python connector (scripts/unifiedpush-connector.sh) as the apps.
        .testTarget(name: "UnifiedPushBusTests", dependencies: ["UnifiedPushBus", "ClusterHarness"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "WebPushWireTests", dependencies: ["WebPushWire", .crypto, .httpTypes],
                    swiftSettings: swiftSettings),
        .testTarget(name: "QRImageTests", dependencies: ["QRImage", "ClusterHarness"], swiftSettings: swiftSettings),
        .testTarget(name: "SystemdSupportTests", dependencies: ["SystemdSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "PushAgentStoreTests", dependencies: [
            "PushAgentStore", "PushAgentCore", .grdb, .crypto,
        ], swiftSettings: swiftSettings),
        .testTarget(name: "PushAgentDaemonTests", dependencies: [
            "PushAgentDaemon", "PushAgentStore", "PushAgentCore", "ControlClient", "ControlWire", .serviceLifecycle,
            // PeerConnectionLimiterTests: connections that open and close without a socket.
            .nioEmbedded,
            // PAMTestService: a PAM stack with a known password.
            "ClusterHarness",
        ], swiftSettings: swiftSettings),
        .testTarget(name: "PushAgentKitTests", dependencies: [
            "PushAgentKit", "PushAgentKitOpenAPI", "CurlHTTP", "HTTPTestSupport", .hummingbird, .openAPIRuntime,
            .httpTypes,
        ], swiftSettings: swiftSettings),
        .testTarget(name: "IntegrationTests", dependencies: [
            "ClusterHarness", "ControlClient", "ControlWire", "CurlHTTP", "PushAgentCore", "PushAgentKit", "PushSim",
        ], swiftSettings: swiftSettings),
    ]
)
