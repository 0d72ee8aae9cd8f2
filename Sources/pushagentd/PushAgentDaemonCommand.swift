import ArgumentParser
import CommandSupport
import ControlWire
import Foundation
import Logging
import PushAgentDaemon
import SystemdSupport

@main
enum PushAgentDaemonMain {
    static func main() async { await CommandEntry.main(PushAgentDaemonCommand.self, name: "pushagentd") }
}

struct PushAgentDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushagentd",
        abstract: "The pushagent daemon: receives push-MFA requests through the relay and answers them as you decide.",
        discussion: "Settings come from the config file, then PUSHAGENT_* environment variables, then these flags. Without --config and not as root it runs in user mode: state under $XDG_STATE_HOME/pushagent, socket under $XDG_RUNTIME_DIR/pushagent. Relative paths in flags and PUSHAGENT_* variables are taken from the current directory, in the config file from the file's directory.",
        version: PushAgentVersion.string)

    @Option(help: "Config file (TOML). Default: /etc/pushagent/pushagentd.toml as root, ~/.config/pushagent/pushagentd.toml otherwise.")
    var config: String?
    @Option(help: "State directory (SQLite database).") var stateDir: String?
    @Option(help: "Control socket path (at most 107 bytes once made absolute).") var socket: String?
    @Option(help: "Relay base URL, e.g. http://127.0.0.1:8470.") var relay: String?
    @Option(help: "Key the relay requires to register a device.") var relayRegistrationKey: String?
    @Option(help: "A user (alice) or group (@wheel) allowed to approve, deny, enroll and remove. Repeatable.")
    var `operator`: [String] = []
    @Flag(help: "Check the configuration, print the effective settings (no secrets) and exit.") var checkConfig = false

    func run() async throws {
        let overrides = ConfigLoader.Overrides(configFile: config, stateDirectory: stateDir, socketPath: socket,
                                               relayURL: relay, relayRegistrationKey: relayRegistrationKey,
                                               operators: `operator`)
        // Relative paths name places under the directory pushagentd was started in, also when a reload reads them again.
        let workingDirectory = FileManager.default.currentDirectoryPath
        let settings: AgentConfig
        do { settings = try ConfigLoader.load(overrides, workingDirectory: workingDirectory) }
        catch { throw ValidationError(error.description) }
        if checkConfig {
            print("configuration OK\n" + settings.summary)
            return
        }
        LoggingSetup.bootstrap(label: "pushagentd", level: settings.logLevel)
        do {
            try await AgentDaemon.run(config: settings) { try ConfigLoader.load(overrides, workingDirectory: workingDirectory) }
        } catch {
            Logger(label: "pushagentd").critical("pushagentd cannot run: \(error)")
            throw ExitCode.failure
        }
    }
}

