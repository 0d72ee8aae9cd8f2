import Foundation
import Logging
@testable import PushAgentDaemon
import PushAgentCore
import Testing

/// The binding and PlusAuth keys of pushagentd.toml.
struct PlusAuthConfigTests {
    func load(_ environment: [String: String]) throws -> AgentConfig {
        try ConfigLoader.load(.init(configFile: nil, stateDirectory: "/tmp/x", socketPath: nil, relayURL: "http://relay",
                                    relayRegistrationKey: nil, operators: []),
                              environment: environment, isRoot: false)
    }

    @Test func defaults() throws {
        let config = try load([:])
        #expect(config.providers.plusAuth.machineIDFile == "/etc/machine-id" && config.providers.plusAuth.bindingIdentity == nil)
        #expect(config.providers.plusAuth.keyAlgorithm == .es256)
        #expect(config.providers.plusAuth.resolveFallbackPath == "/push-authenticator/resolve-challenge")
        #expect(config.summary.contains("binding_identity: (not set)"))
    }

    @Test func fromTheEnvironment() throws {
        let config = try load([
            "PUSHAGENT_MACHINE_ID_FILE": "/tmp/id", "PUSHAGENT_BINDING_IDENTITY": "serial-42",
            "PUSHAGENT_PLUSAUTH_KEY_ALGORITHM": "rs256", "PUSHAGENT_PLUSAUTH_RESOLVE_FALLBACK_PATH": "",
        ])
        #expect(config.providers.plusAuth.machineIDFile == "/tmp/id" && config.providers.plusAuth.bindingIdentity == "serial-42")
        #expect(config.providers.plusAuth.keyAlgorithm == .rs256 && config.providers.plusAuth.resolveFallbackPath.isEmpty)
        #expect(config.summary.contains("binding_identity: (set)") && !config.summary.contains("serial-42"))
        #expect(config.summary.contains("plusauth_resolve_fallback_path: (none)"))
    }

    @Test func badValuesNameTheKey() {
        #expect { try load(["PUSHAGENT_PLUSAUTH_KEY_ALGORITHM": "HS256"]) } throws: { error in
            "\(error)" == "environment variable PUSHAGENT_PLUSAUTH_KEY_ALGORITHM: 'plusauth_key_algorithm' must be ES256 or RS256, not 'HS256'"
        }
        #expect { try load(["PUSHAGENT_PLUSAUTH_RESOLVE_FALLBACK_PATH": "resolve?x=1"]) } throws: { error in
            "\(error)".contains("'plusauth_resolve_fallback_path' must be a path starting with '/'")
        }
    }

    @Test func theExampleFileHoldsEveryKey() throws {
        let example = try String(contentsOfFile: #filePath.replacingOccurrences(
            of: "Tests/PushAgentDaemonTests/PlusAuthConfigTests.swift", with: "etc/pushagent/pushagentd.toml"), encoding: .utf8)
        for key in ["machine_id_file", "binding_identity", "plusauth_key_algorithm", "plusauth_resolve_fallback_path"] {
            #expect(example.contains("# \(key) = "), "\(key) is documented in etc/pushagent/pushagentd.toml")
        }
        var config = try load([:])
        let uncommented = example.split(separator: "\n").map { line in
            line.hasPrefix("# ") && line.contains(" = ") ? String(line.dropFirst(2)) : String(line)
        }.joined(separator: "\n")
        try config.apply(toml: uncommented, file: "pushagentd.toml")
        #expect(config.providers.plusAuth.keyAlgorithm == .es256 && config.providers.plusAuth.bindingIdentity == nil)
    }

    /// The machine's fingerprint follows a reload of `machine_id_file` or `binding_identity`, and is read once per
    /// setting, not once per push.
    @Test func theMachineIdentityFollowsItsSettings() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("machine-id-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "4c4c4544003d3610804cb4c04f4d4d32\n".write(toFile: file, atomically: true, encoding: .utf8)
        let identity = MachineIdentity(logger: Logger(label: "test"))
        var settings = PlusAuthSettings()
        settings.machineIDFile = file
        let first = try #require(identity.fingerprint(settings))
        try "another machine\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(identity.fingerprint(settings) == first, "the same settings are not read again")
        settings.bindingIdentity = "serial-42"
        let reloaded = try #require(identity.fingerprint(settings))
        #expect(reloaded != first)
        #expect(reloaded == PlusAuthBinding.fingerprint(machineID: "another machine\n", configuredIdentity: "serial-42"))
    }
}
