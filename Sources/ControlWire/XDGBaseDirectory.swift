/// An XDG base directory from the environment (`XDG_RUNTIME_DIR`, `XDG_STATE_HOME`, …), when set and absolute: the
/// XDG spec has relative values ignored. The daemon and its clients read them alike, so they agree on where the
/// socket is.
public enum XDGBaseDirectory {
    public static func path(_ name: String, in environment: [String: String]) -> String? {
        environment[name].flatMap { $0.hasPrefix("/") ? $0 : nil }
    }
}
