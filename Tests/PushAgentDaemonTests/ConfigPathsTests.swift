import Foundation
@testable import PushAgentDaemon
import Testing

/// Relative paths in pushagentd's settings name places under the directory it started in (flags, environment) or
/// under the config file's directory, and are absolute from then on.
struct ConfigPathsTests {
    let workingDirectory = "/srv/work"

    func overrides(config: String? = nil, stateDir: String? = nil, socket: String? = nil) -> ConfigLoader.Overrides {
        .init(configFile: config, stateDirectory: stateDir, socketPath: socket, relayURL: "http://relay",
              relayRegistrationKey: nil, operators: [])
    }

    func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pushagentd-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func relativeFlagsAreTakenFromTheWorkingDirectory() throws {
        let config = try ConfigLoader.load(overrides(stateDir: "st", socket: "./run/../agent.sock"), environment: [:],
                                           isRoot: false, workingDirectory: workingDirectory)
        #expect(config.stateDirectory == "/srv/work/st")
        #expect(config.socketPath == "/srv/work/agent.sock")
    }

    @Test func aRelativeStateDirectoryAloneKeepsTheSocketInIt() throws {
        let config = try ConfigLoader.load(overrides(stateDir: "st"), environment: ["HOME": "/home/alice"], isRoot: false,
                                           workingDirectory: workingDirectory)
        #expect(config.socketPath == "/srv/work/st/pushagentd.sock")
    }

    @Test func relativeEnvironmentPathsAreTakenFromTheWorkingDirectory() throws {
        let config = try ConfigLoader.load(
            overrides(), environment: ["PUSHAGENT_STATE_DIR": "state", "PUSHAGENT_MACHINE_ID_FILE": "id"], isRoot: true,
            workingDirectory: workingDirectory)
        #expect(config.stateDirectory == "/srv/work/state")
        #expect(config.providers.plusAuth.machineIDFile == "/srv/work/id")
    }

    @Test func relativePathsInTheFileAreTakenFromItsDirectory() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "state_dir = \"state\"\nsocket = \"run/agent.sock\"\nmachine_id_file = \"../machine-id\"\n"
            .write(toFile: directory + "/pushagentd.toml", atomically: true, encoding: .utf8)
        // The file itself is named relative to the working directory, as a flag.
        let config = try ConfigLoader.load(overrides(config: "pushagentd.toml"), environment: [:], isRoot: false,
                                           workingDirectory: directory)
        #expect(config.source == directory + "/pushagentd.toml")
        #expect(config.stateDirectory == directory + "/state")
        #expect(config.socketPath == directory + "/run/agent.sock")
        #expect(config.providers.plusAuth.machineIDFile == (directory as NSString).deletingLastPathComponent + "/machine-id")
    }

    @Test func anEmptyPathIsRefusedNamingTheFlag() throws {
        #expect { try ConfigLoader.load(overrides(stateDir: ""), environment: [:], isRoot: false) } throws: { error in
            "\(error)".contains("--state-dir") && "\(error)".contains("empty")
        }
    }

    @Test func aSocketPathTooLongForUnixSocketsIsRefused() throws {
        let deep = String(repeating: "d", count: 100)
        #expect {
            try ConfigLoader.load(overrides(socket: "\(deep)/agent.sock"), environment: [:], isRoot: false,
                                  workingDirectory: workingDirectory)
        } throws: { error in
            "\(error)".contains("at most 107") && "\(error)".contains("--socket")
        }
    }

    @Test func relativeXDGDirectoriesAreIgnoredAsTheSpecSays() throws {
        let config = try ConfigLoader.load(
            overrides(), environment: ["HOME": "/home/alice", "XDG_STATE_HOME": "state", "XDG_RUNTIME_DIR": "run"],
            isRoot: false, workingDirectory: workingDirectory)
        #expect(config.stateDirectory == "/home/alice/.local/state/pushagent")
        #expect(config.socketPath == "/home/alice/.local/state/pushagent/pushagentd.sock")
    }
}
