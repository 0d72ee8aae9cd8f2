import Foundation

extension AgentConfig {
    /// The keys a reload applies. The others name things opened or registered at start (state directory, socket,
    /// relay registration) and need a restart, which keeps pending approvals too.
    static let reloadableKeys: Set<String> = Set([
        "operators", "log_level", "poll_wait_seconds", "backoff_initial_seconds", "backoff_max_seconds",
        "answer_wait_seconds", "push_limit_per_account", "push_limit_window_seconds", "fraud_mute_seconds",
        "collapse_similar_pending", "user_verification_pam_service", "user_verification_pam_dir",
    ] + ProviderSettings.keys)

    /// This configuration with the reloadable settings taken from `newer`.
    func reloaded(from newer: AgentConfig) -> AgentConfig {
        var result = self
        result.operators = newer.operators
        result.logLevel = newer.logLevel
        result.pollWaitSeconds = newer.pollWaitSeconds
        result.backoffInitialSeconds = newer.backoffInitialSeconds
        result.backoffMaxSeconds = newer.backoffMaxSeconds
        result.answerWaitSeconds = newer.answerWaitSeconds
        result.pushBudget = newer.pushBudget
        result.fraudMuteSeconds = newer.fraudMuteSeconds
        result.collapseSimilarPending = newer.collapseSimilarPending
        result.userVerificationPAMService = newer.userVerificationPAMService
        result.userVerificationPAMDirectory = newer.userVerificationPAMDirectory
        result.providers = newer.providers
        return result
    }

    /// Every key whose value differs in `newer`, as `key: old → new`, without secrets (as in `summary`); a key only one
    /// side has (an FCM app's, `fcm_apps.NAME.…`) counts as `(none)` on the other.
    func changes(to newer: AgentConfig) -> [(key: String, text: String)] {
        let old = summaryValues, new = newer.summaryValues
        return Set(Self.keys).union(old.keys).union(new.keys).sorted().compactMap { key in
            if key == "relay_registration_key", relayRegistrationKey != newer.relayRegistrationKey,
               old[key] == new[key] {
                return (key, "\(key): changed")
            }
            guard old[key] != nil || new[key] != nil, old[key] != new[key] else { return nil }
            return (key, "\(key): \(old[key] ?? "(none)") → \(new[key] ?? "(none)")")
        }
    }

    /// Whether a change of `key` on the way to `newer` waits for a restart: the keys of what is opened or registered
    /// at start, and those of an FCM app added or removed (each app has a connection made at start); a changed app's
    /// values apply from its next connection.
    func needsRestart(_ key: String, toApply newer: AgentConfig) -> Bool {
        guard let app = FCMSettings.appName(ofKey: key) else { return !Self.reloadableKeys.contains(key) }
        return (providers.fcm.app(named: app) == nil) != (newer.providers.fcm.app(named: app) == nil)
    }

    private var summaryValues: [String: String] {
        var values: [String: String] = [:]
        for line in summary.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            values[String(line[..<colon])] = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        return values
    }
}
