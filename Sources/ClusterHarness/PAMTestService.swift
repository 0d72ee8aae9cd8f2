import Foundation

/// A private PAM configuration directory whose `pushagent` service accepts one password: pam_exec hands what the
/// user typed to a script that compares it. Tests verify users through the real PAM library this way, without
/// /etc/pam.d or anyone's real password.
public struct PAMTestService: Sendable {
    public static let service = "pushagent"
    /// The PAM configuration directory (`user_verification_pam_dir`).
    public let directory: String
    public let password: String

    /// Writes the service and its script under `parent`, which the PAM user must be able to read.
    public init(in parent: String, password: String) throws {
        directory = parent + "/pam.d"
        self.password = password
        // Modes set outright: other tests in this process change the umask, and the PAM user may not be the owner.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        let script = parent + "/check-password.sh"
        // pam_exec writes the password to the script's stdin, NUL-terminated.
        try "#!/bin/sh\n[ \"$(tr -d '\\000')\" = '\(password)' ]\n".write(toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: script)
        // The script is run by /bin/sh rather than executed itself. Foundation writes it through a descriptor without
        // O_CLOEXEC while other tests' threads start processes: a child forked meanwhile keeps the file open for
        // writing (for its whole life, if it execs a server), and executing the script then fails with "Text file
        // busy", which pam_exec reports as "System error". Reading it is never refused that way.
        try """
            auth required pam_exec.so expose_authtok quiet /bin/sh \(script)
            account required pam_permit.so

            """.write(toFile: directory + "/" + Self.service, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory + "/" + Self.service)
    }
}
