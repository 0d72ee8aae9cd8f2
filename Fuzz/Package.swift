// swift-tools-version:6.2
// libFuzzer targets for pushagent's parsers (docs/reliability.md, "Fuzzing"). A package of its own so the main
// `swift build` never sees -sanitize=fuzzer. Build and run through `make fuzz` / `make fuzz-smoke`.
import PackageDescription

/// The main package, by path; SwiftPM names a path dependency after its directory, whatever the checkout is called.
let pushagent = String(Context.packageDirectory.split(separator: "/").dropLast().last!)

/// The modules under test (PushAgentCore, ControlWire, CurlHTTP) are not products of the main package. PushAgentKit
/// is, and is built on them, so depending on it builds them and lets the targets import them.
let pushAgentModules = Target.Dependency.product(name: "PushAgentKit", package: pushagent)
/// The relay's device API, a product of its own.
let relayWire = Target.Dependency.product(name: "RelayWire", package: pushagent)
let webPushWire: [Target.Dependency] = [
    .product(name: "WebPushWire", package: pushagent), .product(name: "HTTPTypes", package: "swift-http-types"),
]

/// One executable per parser family; `make fuzz` runs every executable whose name starts with `Fuzz`.
let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
    ("FuzzEnrollmentURI", []),
    ("FuzzPushRouting", []),
    ("FuzzForgeRockSignedClaims", []),
    ("FuzzPlusAuthSignedClaims", []),
    ("FuzzPrivacyIDEASignedChallenge", []),
    ("FuzzGuardianPush", []),
    ("FuzzJOSE", []),
    ("FuzzFlow", []),
    ("FuzzTOTP", []),
    ("FuzzControlRequests", []),
    ("FuzzBackupFile", []),
    ("FuzzProviderReplies", []),
    ("FuzzMCSFraming", []),
    ("FuzzWebPush", []),
    ("FuzzWebPushRequest", webPushWire),
    ("FuzzRelaySendBody", ["RelaySendBody"]),
    ("FuzzRelayPollReply", ["RelayPollReply"]),
]

let package = Package(
    name: "pushagent-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: [
            "CFuzzDriver", pushAgentModules, .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
        ]),
        // The relay's send parser, whose module pulls in NIO and GRDB, compiled here from the same files (symlinks) so
        // a fuzz build stays minutes shorter.
        .target(name: "RelaySendBody", dependencies: [relayWire]),
        .target(name: "RelayPollReply", dependencies: [relayWire]),
    ] + fuzzTargets.map { target in
        // No top-level code: the entry point is the target's `@_cdecl("<Module>_main")`.
        .executableTarget(name: target.name, dependencies: ["FuzzSupport"] + target.dependencies,
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    }
)
