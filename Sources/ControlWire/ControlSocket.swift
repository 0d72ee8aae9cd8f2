import Foundation

/// Where the control socket is (docs/design.md §4): `--socket`/`PUSHAGENT_SOCKET`, else the user service's, else the system's.
public enum ControlSocket {
    public static let systemPath = "/run/pushagent/pushagentd.sock"

    public static func userPath(environment: [String: String]) -> String? {
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return nil }
        return runtime + "/pushagent/pushagentd.sock"
    }

    /// The socket a client should use: an explicit path wins; otherwise the user socket if a user daemon runs, else the system one.
    public static func clientPath(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                                  exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let fromEnv = environment["PUSHAGENT_SOCKET"], !fromEnv.isEmpty { return fromEnv }
        if getuid() != 0, let user = userPath(environment: environment), exists(user) { return user }
        return systemPath
    }
}
