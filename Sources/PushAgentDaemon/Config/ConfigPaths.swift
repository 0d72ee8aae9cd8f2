import Foundation

/// How pushagentd reads the paths in its settings. A relative path is made absolute as it is read: against the
/// config file's directory when the file holds it, against the working directory pushagentd started in when a flag
/// or the environment gives it. So it names the same place whatever the process's directory later, and logs and
/// `--check-config` show where that is.
enum ConfigPaths {
    /// The keys that name a file, directory or socket.
    static let keys: Set<String> = ["state_dir", "socket", "machine_id_file", "user_verification_pam_dir", "fcm_ca_file"]

    /// `sockaddr_un.sun_path` holds 108 bytes with the terminating NUL.
    static let maximumSocketPathBytes = 107

    static func absolute(_ path: String, relativeTo directory: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: directory, isDirectory: true)).standardizedFileURL.path
    }
}
