import Foundation

/// Where the control socket is (docs/control-api.md, "Socket"): `--socket`/`PUSHAGENT_SOCKET`, else the first that
/// exists of the places a user's daemon listens and the system's.
public enum ControlSocket {
    public static let systemPath = "/run/pushagent/pushagentd.sock"

    /// Where a user's daemon listens by default: in its runtime directory, or, without one (after `su`, over plain
    /// ssh, in cron), beside its state: `${XDG_STATE_HOME:-~/.local/state}/pushagent/pushagentd.sock`.
    public static func userPath(environment: [String: String]) -> String? {
        runtimePath(environment: environment) ?? userStatePath(environment: environment)
    }

    /// `$XDG_RUNTIME_DIR/pushagent/pushagentd.sock`; nil without a runtime directory.
    public static func runtimePath(environment: [String: String]) -> String? {
        XDGBaseDirectory.path("XDG_RUNTIME_DIR", in: environment).map(inRuntimeDirectory)
    }

    private static func inRuntimeDirectory(_ directory: String) -> String {
        directory + "/pushagent/pushagentd.sock"
    }

    static func userStatePath(environment: [String: String]) -> String? {
        let state = XDGBaseDirectory.path("XDG_STATE_HOME", in: environment) ?? environment["HOME"].map { $0 + "/.local/state" }
        guard let state else { return nil }
        return state + "/pushagent/pushagentd.sock"
    }

    /// The places a client looks, in order. Not as root: the user's runtime directory (`$XDG_RUNTIME_DIR`, or
    /// `/run/user/UID` when the variable is unset but the session's directory is there), then beside the user's
    /// state; then the system's, for everyone.
    public static func searchOrder(environment: [String: String], uid: uid_t = getuid()) -> [String] {
        var places: [String] = []
        if uid != 0 {
            places.append(runtimePath(environment: environment) ?? inRuntimeDirectory("/run/user/\(uid)"))
            if let state = userStatePath(environment: environment) { places.append(state) }
        }
        places.append(systemPath)
        return places
    }

    /// The socket a client should use, and the places it looked (empty when it was told where).
    public struct Resolution: Sendable, Equatable {
        public var path: String
        public var searched: [String]
    }

    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                               uid: uid_t = getuid(),
                               exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> Resolution {
        if let explicit, !explicit.isEmpty { return Resolution(path: explicit, searched: []) }
        if let fromEnvironment = environment["PUSHAGENT_SOCKET"], !fromEnvironment.isEmpty {
            return Resolution(path: fromEnvironment, searched: [])
        }
        let places = searchOrder(environment: environment, uid: uid)
        return Resolution(path: places.first(where: exists) ?? systemPath, searched: places)
    }

    public static func clientPath(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                                  exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> String {
        resolve(explicit: explicit, environment: environment, exists: exists).path
    }
}
