import Foundation
@testable import PushAgentDaemon
import Testing

/// What a SIGHUP reload applies and how it reports the change.
struct ConfigReloadTests {
    let running: AgentConfig = {
        var config = AgentConfig.defaults(systemMode: true, environment: [:])
        config.relayURL = "http://relay-a:8470"
        config.relayRegistrationKey = "registration-key-one"
        config.operators = ["@pushagent"]
        return config
    }()

    @Test func reportsEachChangedKeyOldToNew() {
        var newer = running
        newer.operators = ["@pushagent", "alice"]
        newer.logLevel = .debug
        let changes = running.changes(to: newer)
        #expect(changes.map(\.key) == ["log_level", "operators"])
        #expect(changes.map(\.text) == ["log_level: info → debug", "operators: @pushagent → @pushagent, alice"])
    }

    @Test func nothingChangedReportsNothing() {
        #expect(running.changes(to: running).isEmpty)
    }

    @Test func aChangedSecretIsReportedWithoutItsValue() {
        var newer = running
        newer.relayRegistrationKey = "registration-key-two"
        let changes = running.changes(to: newer)
        #expect(changes.map(\.text) == ["relay_registration_key: changed"])
        #expect(!changes.map(\.text).joined().contains("registration-key"))
    }

    @Test func appliesOnlyTheReloadableKeys() {
        var newer = running
        newer.operators = []
        newer.pollWaitSeconds = 5
        newer.answerWaitSeconds = 3
        newer.relayURL = "http://relay-b:8470"
        newer.stateDirectory = "/elsewhere"
        let applied = running.reloaded(from: newer)
        #expect(applied.operators == [])
        #expect(applied.pollWaitSeconds == 5)
        #expect(applied.answerWaitSeconds == 3)
        #expect(applied.relayURL == "http://relay-a:8470", "the relay registration needs a restart")
        #expect(applied.stateDirectory == running.stateDirectory, "the open database needs a restart")
        #expect(Set(running.changes(to: newer).map(\.key)).subtracting(AgentConfig.reloadableKeys) == ["relay_url", "state_dir"])
    }

    /// Each provider's section reloads with the rest (the PlusAuth module and the privacyIDEA poller used to keep the
    /// values they started with).
    @Test func appliesEveryProvidersSettings() throws {
        var newer = running
        try newer.set("privacyidea_poll_seconds", "30", origin: "test", relativeTo: "/")
        try newer.set("plusauth_key_algorithm", "RS256", origin: "test", relativeTo: "/")
        try newer.set("binding_identity", "serial-42", origin: "test", relativeTo: "/")
        try newer.set("machine_id_file", "/srv/machine-id", origin: "test", relativeTo: "/")
        let changes = running.changes(to: newer)
        #expect(changes.map(\.key) == ["binding_identity", "machine_id_file", "plusauth_key_algorithm",
                                        "privacyidea_poll_seconds"])
        #expect(changes.allSatisfy { AgentConfig.reloadableKeys.contains($0.key) })
        #expect(!changes.map(\.text).joined().contains("serial-42"), "the binding identity is not shown")
        let applied = running.reloaded(from: newer)
        #expect(applied.providers.privacyIDEA.pollSeconds == 30)
        #expect(applied.providers.plusAuth.keyAlgorithm == .rs256)
        #expect(applied.providers.plusAuth.bindingIdentity == "serial-42")
        #expect(applied.providers.plusAuth.machineIDFile == "/srv/machine-id")
    }
}
