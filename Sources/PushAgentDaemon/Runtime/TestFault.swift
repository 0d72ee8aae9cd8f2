import Foundation

/// Faults the crash-safety tests inject through `PUSHAGENT_TEST_FAULT`; with the variable unset, nothing happens.
enum TestFault: String {
    /// SIGKILL right after a push is verified, before its effect is committed (the relay must redeliver it).
    case killBeforeCommit = "kill-before-commit"
    /// SIGKILL right after the commit, before the relay is acknowledged (the redelivery must be absorbed).
    case killAfterCommit = "kill-after-commit"
    /// SIGKILL while processing any push carrying the data key `crashMarker`, at every attempt: a push that crashes
    /// the daemon, which must be dropped after a few restarts instead of stopping every other push for good.
    case crashOnMarkedPush = "crash-on-marked-push"
    static let crashMarker = "pushagent-test:crash"
    /// The relay loop stops after its first successful poll, as a loop stuck on an await that never returns would:
    /// nothing crashes and the socket still answers, so only the systemd watchdog can notice and restart it.
    case hangRelayLoop = "hang-relay-loop"

    static let active = ProcessInfo.processInfo.environment["PUSHAGENT_TEST_FAULT"].flatMap(TestFault.init(rawValue:))

    static func trigger(_ fault: TestFault, when condition: Bool = true) {
        if active == fault, condition { kill(getpid(), SIGKILL) }
    }

    static func stall(_ fault: TestFault) async {
        guard active == fault else { return }
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
    }
}
