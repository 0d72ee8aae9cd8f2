import ArgumentParser
import Foundation

/// Secrets pushctl asks for: the login password `approve` sends so pushagentd can check it is the user (approvals of
/// kind verify), and a backup's passphrase. Typed at the terminal without echo, or one line from a descriptor for
/// automation. Never from the command line, which every user can read in /proc.
enum PasswordInput {
    /// The longest line read from --password-fd; PAM itself takes at most 512 bytes.
    static let maximumBytes = 4096

    /// Asks on the terminal (stdin), with echo off while the password is typed.
    static func ask(_ prompt: String) throws -> String {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw ValidationError("cannot turn off the terminal's echo to read it: \(String(cString: strerror(errno)))")
        }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        // Echo off before the prompt shows: what is typed (or pasted) at the prompt at once is neither shown nor
        // discarded with the input TCSAFLUSH drops.
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) == 0 else {
            throw ValidationError("cannot turn off the terminal's echo to read it: \(String(cString: strerror(errno)))")
        }
        FileHandle.standardError.write(Data(prompt.utf8))
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            // The Enter that ended the password was not echoed.
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true) ?? ""
    }

    /// Reads one line from `fd`, byte by byte so nothing past the line is taken from a shared descriptor; `option`
    /// names where the descriptor was given, for errors.
    static func line(from fd: Int32, option: String = "--password-fd") throws -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(fd, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw ValidationError("cannot read \(option) \(fd): \(String(cString: strerror(errno)))")
            }
            if count == 0 || byte == UInt8(ascii: "\n") { break }
            guard bytes.count < maximumBytes else {
                throw ValidationError("\(option) \(fd) holds a line longer than \(maximumBytes) bytes: that is not a password")
            }
            bytes.append(byte)
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The user whose password pushagentd will check: the one this process runs as.
    static var userName: String {
        getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "uid \(getuid())"
    }
}
