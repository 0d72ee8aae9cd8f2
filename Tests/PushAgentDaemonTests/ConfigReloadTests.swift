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

    /// An FCM app's changed values apply from its next connection; an app added or removed waits for a restart (its
    /// connection is made at start), and the reload says which keys.
    @Test func fcmAppsChangeOnReloadAndAppsComeAndGoOnRestart() throws {
        var withApp = running
        for (key, value) in [("project_id", "tenant-mfa"), ("api_key", "AIzaSyA"), ("app_id", "1:2:web:3"), ("sender_id", "2")] {
            try withApp.providers.fcm.setApp("tenant", key, value, origin: "test")
        }
        let added = running.changes(to: withApp)
        #expect(added.map(\.text).contains("fcm_apps.tenant.project_id: (none) → tenant-mfa"))
        #expect(added.allSatisfy { running.needsRestart($0.key, toApply: withApp) }, "\(added)")

        var changed = withApp
        try changed.providers.fcm.setApp("tenant", "api_key", "AIzaSyB", origin: "test")
        try changed.providers.fcm.setApp("tenant", "providers", "plusauth", origin: "test")
        let edits = withApp.changes(to: changed)
        #expect(edits.map(\.key) == ["fcm_apps.tenant.api_key", "fcm_apps.tenant.providers"])
        #expect(!edits.contains { withApp.needsRestart($0.key, toApply: changed) })
        #expect(withApp.reloaded(from: changed).providers.fcm.appForProvider[.plusauth] == "tenant")

        let removed = withApp.changes(to: running)
        #expect(removed.map(\.text).contains("fcm_apps.tenant.project_id: tenant-mfa → (none)"))
        #expect(removed.allSatisfy { withApp.needsRestart($0.key, toApply: running) })
        #expect(!running.needsRestart("fcm_heartbeat_seconds", toApply: withApp))
    }
}
