import CPolkit
import Foundation
import Synchronization

/// polkit on the system bus, asked whether the process approving a verify approval may: its authentication agent (a
/// desktop's dialog, or pkttyagent in the terminal of `pushctl approve`) asks the person at the machine for their
/// password while the check waits. That proves presence as a password sent to PAM does, but polkitd checks it, so it
/// also works for the system service, which cannot read /etc/shadow.
final class PolkitAuthority: Sendable {
    static let actionId = "org.pushagent.approve-verified"
    /// The policy file defining the action (packaging/polkit), in one of the directories polkitd reads actions from.
    static let policyPaths = ["/etc/polkit-1/actions", "/run/polkit-1/actions", "/usr/local/share/polkit-1/actions",
                              "/usr/share/polkit-1/actions"].map { $0 + "/org.pushagent.policy" }
    /// How long a finding of available or not is kept: the notifier asks for the status often, and polkit rarely
    /// comes or goes.
    static let recheckAfter: TimeInterval = 30
    /// polkitd answers a check without user interaction at once; this only bounds a polkitd that hangs (D-Bus's
    /// own default).
    static let probeTimeout: Duration = .seconds(25)

    private let finding = Mutex<(at: Date, available: Bool)?>(nil)

    /// Why polkit could not be asked, in the bus's words.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        let timedOut: Bool
    }

    /// Whether verify approvals can be checked through polkit: the action's policy file is installed and the system
    /// bus has polkitd, or can start it.
    func isAvailable(now: Date = Date()) async -> Bool {
        if let known = finding.withLock({ $0 }), now.timeIntervalSince(known.at) < Self.recheckAfter { return known.available }
        let available = await onOwnThread {
            Self.policyPaths.contains(where: FileManager.default.fileExists(atPath:)) && polkit_authority_reachable() == 1
        }
        finding.withLock { $0 = (now, available) }
        return available
    }

    /// Asks polkit whether `subject` may approve, letting its agent ask the user when it would; waits up to `timeout`
    /// for them. `details` are shown by the agent; `cancellationId` names the check, so that it is cancelled on a
    /// timeout.
    func check(_ subject: PolkitSubject, details: [String: String], cancellationId: String,
               timeout: Duration) async throws(Failure) -> PolkitDecision {
        let probe = try await ask(subject, details: details, interactive: false, cancellationId: cancellationId,
                                  timeout: Self.probeTimeout)
        if let decided = PolkitDecision(probe: probe) { return decided }
        return PolkitDecision(answer: try await ask(subject, details: details, interactive: true,
                                                    cancellationId: cancellationId, timeout: timeout))
    }

    private func ask(_ subject: PolkitSubject, details: [String: String], interactive: Bool, cancellationId: String,
                     timeout: Duration) async throws(Failure) -> PolkitReply {
        let flat = details.flatMap { [$0.key, $0.value] }
        let microseconds = UInt64(max(1, timeout.components.seconds)) * 1_000_000
        let result = await onOwnThread { () -> Result<PolkitReply, Failure> in
            var authorized: Int32 = 0
            var challenge: Int32 = 0
            var replyDetails: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
            let errorSize = 512
            var error = [CChar](repeating: 0, count: errorSize)
            let status = withCStrings(flat) { pointers in
                polkit_check_authorization(subject.pid, subject.startTime, Int32(bitPattern: subject.uid), Self.actionId,
                                           pointers, flat.count / 2, interactive ? 1 : 0, cancellationId, microseconds,
                                           &authorized, &challenge, &replyDetails, &error, errorSize)
            }
            guard status >= 0 else {
                let message = error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                return .failure(Failure(description: message, timedOut: status == -ETIMEDOUT))
            }
            return .success(PolkitReply(isAuthorized: authorized != 0, isChallenge: challenge != 0,
                                        details: Self.takeDetails(replyDetails)))
        }
        return try result.get()
    }

    /// The reply's flattened key, value strings as a dictionary; frees them.
    private static func takeDetails(_ strings: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> [String: String] {
        guard let strings else { return [:] }
        defer { free(strings) }
        var details: [String: String] = [:]
        var index = 0
        while let key = strings[index], let value = strings[index + 1] {
            details[String(cString: key)] = String(cString: value)
            free(key)
            free(value)
            index += 2
        }
        return details
    }
}

/// Calls `body` with `strings` as C strings, valid during the call.
private func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
    let copies = strings.map { UnsafePointer(strdup($0)) }
    defer { copies.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
    return copies.withUnsafeBufferPointer { body($0.baseAddress) }
}
