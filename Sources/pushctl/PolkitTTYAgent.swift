import Foundation

/// pkttyagent, registered as polkit's authentication agent for this process, as systemctl runs it: while it runs, a
/// polkit check about pushctl (pushagentd's, for a verify approval) asks for the password in this terminal. Not with
/// systemctl's --fallback: polkitd (122) uses a fallback agent only for a subject in a logind session, so outside
/// one (ssh without pam_systemd, sudo -u, a container) no agent would be found.
struct PolkitTTYAgent {
    let pid: pid_t

    /// It could not be started: a failure at run time (exit 1), not a usage error.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts pkttyagent and returns once it is registered; nil when it is not installed or could not register
    /// (it says why on stderr).
    static func start() throws -> PolkitTTYAgent? {
        guard let path = executable() else { return nil }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Failure(description: "cannot start pkttyagent: pipe: \(String(cString: strerror(errno)))") }
        let (readEnd, notifyEnd) = (ends[0], ends[1])
        defer { close(readEnd) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addclose(&actions, readEnd)
        // The calling thread (one of the async runtime's) blocks signals, and a child inherits its mask: pkttyagent
        // would then ignore the SIGTERM that stops it, and the Ctrl-C that cancels its prompt.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let status = withArgv([path, "--process", "\(getpid())", "--notify-fd", "\(notifyEnd)"]) { argv in
            posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        }
        close(notifyEnd)
        guard status == 0 else { throw Failure(description: "cannot start \(path): \(String(cString: strerror(status)))") }
        // pkttyagent closes its end once it is registered, or exits (closing it too) when it cannot register.
        var byte: UInt8 = 0
        while read(readEnd, &byte, 1) < 0, errno == EINTR {}
        var exitStatus: Int32 = 0
        if waitpid(pid, &exitStatus, WNOHANG) == pid { return nil }
        return PolkitTTYAgent(pid: pid)
    }

    func stop() {
        kill(pid, SIGTERM)
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) < 0, errno == EINTR {}
    }

    private static func executable() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/pkttyagent" }.first { access($0, X_OK) == 0 }
    }

    /// `arguments` as a NULL-terminated C array, valid during `body`.
    private static func withArgv<T>(_ arguments: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        return body(argv)
    }
}
