import CPAM
import Foundation

/// Checks a local user's password through PAM: the local user verification approvals of kind verify need.
struct PAMAuthenticator: Sendable {
    /// The PAM service (a file of that name in `configDirectory`).
    let service: String
    /// Where the service's file is; nil for /etc/pam.d.
    let configDirectory: String?

    /// Why PAM refused, in PAM's words.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Authenticates `user` with `password` (pam_authenticate), then checks the account may be used now
    /// (pam_acct_mgmt). PAM blocks, for seconds on a wrong password (pam_unix's delay), so it runs on a thread of
    /// its own rather than on the cooperative pool.
    func authenticate(user: String, password: String) async throws(Failure) {
        if let failure = await onOwnThread({ run(user: user, password: password) }) { throw failure }
    }

    private func run(user: String, password: String) -> Failure? {
        // The conversation hands PAM malloc'd copies of this one (PAM frees them); it is zeroed once PAM is done.
        guard let secret = strdup(password) else { return Failure(description: "out of memory") }
        defer {
            explicit_bzero(secret, strlen(secret))
            free(secret)
        }
        var conversation = pam_conv(conv: { count, messages, responses, secret in
            guard count > 0, count <= PAM_MAX_NUM_MSG, let messages, let responses, let secret,
                  let replies = calloc(Int(count), MemoryLayout<pam_response>.size)?
                      .assumingMemoryBound(to: pam_response.self) else { return PAM_CONV_ERR }
            for index in 0..<Int(count) {
                switch messages[index]?.pointee.msg_style {
                case PAM_PROMPT_ECHO_OFF: replies[index].resp = strdup(secret.assumingMemoryBound(to: CChar.self))
                // Only a user name is asked for with echo, and PAM was given it: an empty answer fails such a stack.
                case PAM_PROMPT_ECHO_ON: replies[index].resp = strdup("")
                // PAM_ERROR_MSG, PAM_TEXT_INFO: there is no one to show them to, and they take no answer.
                default: continue
                }
                guard replies[index].resp != nil else {
                    for earlier in 0..<index { free(replies[earlier].resp) }
                    free(replies)
                    return PAM_BUF_ERR
                }
            }
            responses.pointee = replies
            return PAM_SUCCESS
        }, appdata_ptr: UnsafeMutableRawPointer(secret))
        var handle: OpaquePointer?
        var status = pam_start_confdir(service, user, &conversation, configDirectory, &handle)
        guard status == PAM_SUCCESS, let handle else {
            let directory = configDirectory ?? "/etc/pam.d"
            return Failure(description: "cannot start PAM service '\(service)' in \(directory) (it needs a file "
                + "'\(service)' or 'other' there that pushagentd can read): \(String(cString: pam_strerror(handle, status)))")
        }
        status = pam_authenticate(handle, 0)
        if status == PAM_SUCCESS { status = pam_acct_mgmt(handle, 0) }
        let failure = status == PAM_SUCCESS ? nil : Failure(description: String(cString: pam_strerror(handle, status)))
        pam_end(handle, status)
        return failure
    }

    /// The login name of `uid`, as PAM knows users.
    static func userName(of uid: UInt32) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return String(cString: entry.pw_name)
    }
}
