import Foundation

/// Starts a program with posix_spawn, its stdio the given descriptors and every other descriptor closed in the child
/// at once (`posix_spawn_file_actions_addclosefrom_np`). Foundation's `Process.run` on Linux lists the parent's
/// descriptors in /proc/self/fd to close them one by one, copying each entry's whole 256-byte name: once the test
/// process holds about 1,300 descriptors the last entry sits at the end of readdir's buffer, the copy reads past it,
/// and the test process crashed (SIGSEGV in `Process.run`) while other tests held many sockets. Every child of the
/// tests starts here.
enum Spawn {
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// glibc 2.34 has both, but its header declares them only for _GNU_SOURCE, which Swift's Glibc module is not built
    /// with.
    private static let addCloseFrom = gnuFunction("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)
    private static let addChdir = gnuFunction("posix_spawn_file_actions_addchdir_np", as: AddChdir.self)

    private static func gnuFunction<Function>(_ name: String, as type: Function.Type) -> Function {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { fatalError("\(name) is missing: glibc 2.34 or later is needed") }
        return unsafeBitCast(symbol, to: type)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The child's pid. `stdio`: the descriptors that become its 0, 1 and 2.
    static func start(_ executable: String, _ arguments: [String], environment: [String: String],
                      stdio: (Int32, Int32, Int32), workingDirectory: String? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (from, to) in [(stdio.0, 0), (stdio.1, 1), (stdio.2, 2)] {
            posix_spawn_file_actions_adddup2(&actions, from, Int32(to))
        }
        _ = addCloseFrom(&actions, 3)
        if let workingDirectory { _ = addChdir(&actions, workingDirectory) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // As Process does: its own process group (a signal to the test's group does not reach it), no signal blocked
        // (the spawning thread, one of the runtime's, blocks some) and every signal's default action (the test
        // process ignores SIGTERM).
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw Failure(description: "cannot start \(executable): \(String(cString: strerror(status)))") }
        return pid
    }

    /// Waits for `pid` to end: its exit code, or the number of the signal that ended it (as Process's
    /// `terminationStatus` has it).
    static func wait(_ pid: pid_t) -> Int32 { waitForEnd(pid).status }

    /// Waits for `pid` to end without reaping it: until `waitForEnd`, its pid stays its own (a zombie's).
    static func waitUntilEnded(_ pid: pid_t) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
    }

    /// Waits for `pid` to end: its exit code, or the number of the signal that ended it and `signaled`.
    static func waitForEnd(_ pid: pid_t) -> (status: Int32, signaled: Bool) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return (-1, false) }
        }
        let signal = status & 0x7f
        return signal == 0 ? ((status >> 8) & 0xff, false) : (signal, true)
    }

    /// A pipe whose ends are closed on exec (a child gets its end through dup2 only; children started meanwhile
    /// close theirs anyway, by closefrom or Process's list).
    static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Everything written to `first` and `second` until both are closed, read together so that neither fills up
    /// while the other is read. Closes both.
    static func readAll(_ first: Int32, _ second: Int32) -> (Data, Data) {
        var outputs = [Data(), Data()]
        var fds = [pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 65536)
        defer { for entry in fds where entry.fd >= 0 { close(entry.fd) } }
        while fds.contains(where: { $0.fd >= 0 }) {
            guard poll(&fds, nfds_t(fds.count), -1) >= 0 else {
                if errno == EINTR { continue }
                break
            }
            for index in fds.indices where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = read(fds[index].fd, &buffer, buffer.count)
                if count > 0 {
                    outputs[index].append(contentsOf: buffer[..<count])
                } else if count == 0 || errno != EINTR {
                    close(fds[index].fd)
                    fds[index].fd = -1
                }
            }
        }
        return (outputs[0], outputs[1])
    }
}
