import Foundation

/// The public values that identify a provider's Firebase web app (its `firebaseConfig`): which project's FCM a
/// registration joins and which sender may push to it. Public identifiers, shipped in every web page of the app.
public struct FirebaseAppProfile: Sendable, Equatable, Codable {
    public var name: String
    public var projectID: String
    public var apiKey: String
    public var appID: String
    public var senderID: String
    /// The app's VAPID key, when it has its own; nil for the default the FCM web SDK uses.
    public var vapidKey: String?

    public init(name: String, projectID: String, apiKey: String, appID: String, senderID: String, vapidKey: String? = nil) {
        self.name = name
        self.projectID = projectID
        self.apiKey = apiKey
        self.appID = appID
        self.senderID = senderID
        self.vapidKey = vapidKey
    }

    /// What is wrong with the profile, in words an admin can act on, or nil; `keyPrefix` names the settings as the
    /// admin writes them (`fcm_` in pushagentd.toml).
    public func problem(keyPrefix: String = "") -> String? {
        let missing = [("project_id", projectID), ("api_key", apiKey), ("app_id", appID), ("sender_id", senderID)]
            .filter { $0.1.trimmingCharacters(in: .whitespaces).isEmpty }.map { keyPrefix + $0.0 }
        if !missing.isEmpty {
            return "FCM app '\(name)' lacks \(missing.joined(separator: ", ")) (its Firebase console: Project settings, "
                + "General, Your apps, the web app's config)"
        }
        if !senderID.allSatisfy(\.isNumber) {
            return "FCM app '\(name)': \(keyPrefix)sender_id '\(senderID)' is not a project number"
        }
        if !appID.hasPrefix("1:") {
            return "FCM app '\(name)': \(keyPrefix)app_id '\(appID)' does not look like 1:<number>:web:<hex>"
        }
        return nil
    }
}
