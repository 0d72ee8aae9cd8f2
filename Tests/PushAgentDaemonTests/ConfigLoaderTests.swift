import ControlWire
import Foundation
@testable import PushAgentDaemon
import PushAgentCore
import Testing

struct ConfigLoaderTests {
    let userEnvironment = ["HOME": "/home/alice", "XDG_RUNTIME_DIR": "/run/user/1000"]

    func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pushagentd-\(UUID()).toml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func overrides(config: String? = nil, relay: String? = nil, stateDir: String? = nil) -> ConfigLoader.Overrides {
        .init(configFile: config, stateDirectory: stateDir, socketPath: nil, relayURL: relay, relayRegistrationKey: nil, operators: [])
    }

    @Test func userModeUsesXDGDirectories() throws {
        let config = try ConfigLoader.load(overrides(relay: "http://relay:8470/"), environment: userEnvironment, isRoot: false)
        #expect(config.stateDirectory == "/home/alice/.local/state/pushagent")
        #expect(config.socketPath == "/run/user/1000/pushagent/pushagentd.sock")
        #expect(config.relayURL == "http://relay:8470", "a trailing slash is dropped")
    }

    /// Issue 25: `--config /dev/null --check-config` said "cannot read config file /dev/null: Success".
    @Test func anEmptyConfigFromDevNullIsReadAndAMissingOneNamesWhy() throws {
        let config = try ConfigLoader.load(overrides(config: "/dev/null", relay: "http://relay:8470"), environment: [:], isRoot: true)
        #expect(config.relayURL == "http://relay:8470")
        let missing = "/nonexistent-\(UUID())/pushagentd.toml"
        let error = #expect(throws: ConfigError.self) {
            try ConfigLoader.load(overrides(config: missing, relay: "http://relay:8470"), environment: [:], isRoot: true)
        }
        #expect(error?.description == "cannot read config file \(missing): No such file or directory")
    }

    /// Issue 25: without XDG_RUNTIME_DIR (after `su`, plain ssh, cron) the user daemon listens beside its state,
    /// and pushctl looked only in /run/pushagent. Both now take the place from ControlSocket.
    @Test func withoutARuntimeDirectoryDaemonAndClientMeetBesideTheState() throws {
        let environment = ["HOME": "/home/alice"]
        let config = try ConfigLoader.load(overrides(relay: "http://relay:8470"), environment: environment, isRoot: false)
        #expect(config.socketPath == "/home/alice/.local/state/pushagent/pushagentd.sock")
        #expect(ControlSocket.userPath(environment: environment) == config.socketPath)
        let found = ControlSocket.resolve(explicit: nil, environment: environment, uid: 1000) { $0 == config.socketPath }
        #expect(found.path == config.socketPath)
        #expect(found.searched == [
            "/run/user/1000/pushagent/pushagentd.sock", "/home/alice/.local/state/pushagent/pushagentd.sock",
            ControlSocket.systemPath,
        ], "the runtime directory's usual place, the state's, the system's")
    }

    @Test func theSearchOrderPutsTheUsersDaemonFirstAndAnExplicitSocketWins() {
        let environment = ["HOME": "/home/alice", "XDG_RUNTIME_DIR": "/run/user/1000", "XDG_STATE_HOME": "/srv/state"]
        #expect(ControlSocket.searchOrder(environment: environment, uid: 1000) == [
            "/run/user/1000/pushagent/pushagentd.sock", "/srv/state/pushagent/pushagentd.sock", ControlSocket.systemPath,
        ])
        #expect(ControlSocket.searchOrder(environment: environment, uid: 0) == [ControlSocket.systemPath], "root uses the system's")
        #expect(ControlSocket.resolve(explicit: nil, environment: environment, uid: 1000) { _ in false }.path == ControlSocket.systemPath)
        let explicit = ControlSocket.resolve(explicit: "/x.sock", environment: environment, uid: 1000) { _ in true }
        #expect(explicit.path == "/x.sock" && explicit.searched.isEmpty, "told where: nothing searched")
        #expect(ControlSocket.resolve(explicit: nil, environment: environment.merging(["PUSHAGENT_SOCKET": "/y.sock"]) { $1 },
                                      uid: 1000) { _ in true }.path == "/y.sock")
    }

    @Test func systemModeUsesSystemPaths() throws {
        let config = try ConfigLoader.load(overrides(relay: "http://relay"), environment: ["PUSHAGENT_LOG_LEVEL": "debug"], isRoot: true)
        #expect(config.stateDirectory == "/var/lib/pushagent")
        #expect(config.socketPath == "/run/pushagent/pushagentd.sock")
        #expect(config.logLevel == .debug)
    }

    @Test func fileThenEnvironmentThenFlags() throws {
        let path = try file("""
        relay_url = "http://from-file"
        operators = ["alice", "@wheel"]
        poll_wait_seconds = 20
        """)
        let config = try ConfigLoader.load(overrides(config: path, relay: "http://from-flag"),
                                           environment: ["PUSHAGENT_POLL_WAIT_SECONDS": "45"], isRoot: false)
        #expect(config.relayURL == "http://from-flag")
        #expect(config.operators == ["alice", "@wheel"])
        #expect(config.pollWaitSeconds == 45)
        #expect(config.source == path)
    }

    @Test func pushBombingSettingsHaveSafeDefaultsAndComeFromFileAndEnvironment() throws {
        let defaults = try ConfigLoader.load(overrides(relay: "http://x"), environment: [:], isRoot: false)
        #expect(defaults.pushBudget == PushBudget(limit: 5, window: 60))
        #expect(defaults.fraudMuteSeconds == 1200 && defaults.collapseSimilarPending)
        let path = try file("""
        push_limit_per_account = 3
        push_limit_window_seconds = 120
        collapse_similar_pending = false
        """)
        let config = try ConfigLoader.load(overrides(config: path, relay: "http://x"),
                                           environment: ["PUSHAGENT_FRAUD_MUTE_SECONDS": "0"], isRoot: false)
        #expect(config.pushBudget == PushBudget(limit: 3, window: 120))
        #expect(config.fraudMuteSeconds == 0 && !config.collapseSimilarPending)
        #expect(AgentConfig.reloadableKeys.isSuperset(of: ["push_limit_per_account", "push_limit_window_seconds",
                                                           "fraud_mute_seconds", "collapse_similar_pending"]))
        #expect(defaults.reloaded(from: config).pushBudget == config.pushBudget)
        #expect { try ConfigLoader.load(overrides(relay: "http://x"), environment: ["PUSHAGENT_COLLAPSE_SIMILAR_PENDING": "maybe"], isRoot: false) } throws: { error in
            "\(error)".contains("PUSHAGENT_COLLAPSE_SIMILAR_PENDING") && "\(error)".contains("true or false")
        }
        #expect { try ConfigLoader.load(overrides(relay: "http://x"), environment: ["PUSHAGENT_PUSH_LIMIT_PER_ACCOUNT": "-1"], isRoot: false) } throws: { error in
            "\(error)".contains("0.0 to 10000.0")
        }
    }

    @Test func userVerificationPAMServiceAndDirectory() throws {
        let defaults = try ConfigLoader.load(overrides(relay: "http://relay"), environment: [:], isRoot: true)
        #expect(defaults.userVerificationPAMService == "pushagent")
        #expect(defaults.userVerificationPAMDirectory == nil, "nil: PAM's own /etc/pam.d")
        let path = try file("user_verification_pam_service = \"sudo\"\nuser_verification_pam_dir = \"pam.d\"\n")
        let config = try ConfigLoader.load(overrides(config: path, relay: "http://relay"), environment: [:], isRoot: true)
        #expect(config.userVerificationPAMService == "sudo")
        #expect(config.userVerificationPAMDirectory == (path as NSString).deletingLastPathComponent + "/pam.d",
                "a relative directory is taken from the file's")
        #expect {
            try ConfigLoader.load(overrides(relay: "http://relay"),
                                  environment: ["PUSHAGENT_USER_VERIFICATION_PAM_SERVICE": "../shadow"], isRoot: true)
        } throws: { error in
            "\(error)".contains("PUSHAGENT_USER_VERIFICATION_PAM_SERVICE") && "\(error)".contains("must name a file")
        }
    }

    @Test func unknownKeyNamesTheKey() throws {
        let path = try file("relay_ur = \"http://x\"\n")
        #expect { try ConfigLoader.load(overrides(config: path), environment: [:], isRoot: false) } throws: { error in
            "\(error)".contains("unknown key 'relay_ur'")
        }
    }

    @Test func badValuesSayWhereTheyCameFrom() throws {
        #expect { try ConfigLoader.load(overrides(relay: "ftp://x"), environment: [:], isRoot: false) } throws: { error in
            "\(error)".contains("--relay") && "\(error)".contains("http(s)")
        }
        #expect { try ConfigLoader.load(overrides(relay: "http://x"), environment: ["PUSHAGENT_POLL_WAIT_SECONDS": "600"], isRoot: false) } throws: { error in
            "\(error)".contains("PUSHAGENT_POLL_WAIT_SECONDS")
        }
        let path = try file("relay_url = [\n")
        #expect { try ConfigLoader.load(overrides(config: path), environment: [:], isRoot: false) } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("line")
        }
    }

    @Test func missingRelayURLSaysHowToSetIt() throws {
        #expect { try ConfigLoader.load(overrides(), environment: userEnvironment, isRoot: false) } throws: { error in
            "\(error)".contains("relay_url is not set") && "\(error)".contains("--relay")
        }
    }

    @Test func backoffGrowsWithJitterUpToTheMaximum() {
        var backoff = Backoff(initial: 1, maximum: 8)
        let delays = (0..<6).map { _ in backoff.next() }
        #expect(delays[0] >= 0.5 && delays[0] <= 1)
        #expect(delays[3] >= 4 && delays[3] <= 8)
        #expect(delays[5] >= 4 && delays[5] <= 8, "capped at the maximum")
    }
}
