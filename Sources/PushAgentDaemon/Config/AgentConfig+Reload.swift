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

    /// Every key whose value differs in `newer`, as `key: old → new`, without secrets (as in `summary`).
    func changes(to newer: AgentConfig) -> [(key: String, text: String)] {
        let old = summaryValues, new = newer.summaryValues
        return Self.keys.sorted().compactMap { key in
            if key == "relay_registration_key", relayRegistrationKey != newer.relayRegistrationKey,
               old[key] == new[key] {
                return (key, "\(key): changed")
            }
            guard let before = old[key], let after = new[key], before != after else { return nil }
            return (key, "\(key): \(before) → \(after)")
        }
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
