import Crypto
import Foundation

/// The public values that identify a provider's Firebase app (a web app's `firebaseConfig`, or an Android app's
/// google-services.json): which project's FCM a registration joins and which sender may push to it. Public
/// identifiers, shipped in every copy of the app.
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

    /// The app pushagentd.toml's flat `fcm_*` keys describe.
    public static let defaultName = "default"
    /// What `pushctl enroll --fcm-app` takes to mean the relay, so no app may be called it.
    public static let relayName = "none"

    /// Why `name` cannot name an app (in pushagentd.toml's `[fcm_apps.NAME]`, `pushctl enroll --fcm-app`), or nil.
    public static func nameProblem(_ name: String) -> String? {
        guard name.range(of: "^[a-z0-9][a-z0-9_-]{0,31}$", options: .regularExpression) != nil, name != relayName else {
            return "an app's name is 1 to 32 of a-z, 0-9, '_' and '-', and not '\(relayName)' (which means the relay)"
        }
        return nil
    }

    /// What is wrong with the profile, in words an admin can act on, or nil; `keyPrefix` names the settings as the
    /// admin writes them (`fcm_` in pushagentd.toml).
    public func problem(keyPrefix: String = "") -> String? {
        let values = [("project_id", projectID), ("api_key", apiKey), ("app_id", appID), ("sender_id", senderID)]
        let missing = values.filter { $0.1.trimmingCharacters(in: .whitespaces).isEmpty }.map { keyPrefix + $0.0 }
        if !missing.isEmpty {
            return "FCM app '\(name)' lacks \(missing.joined(separator: ", ")) (a web app's config in its Firebase console "
                + "under Project settings, General, Your apps; for an Android-only app, its google-services.json: "
                + "pushctl fcm import-google-services)"
        }
        for (key, value) in values + [("vapid_key", vapidKey ?? "")] {
            if let problem = Self.problem(ofKey: key, value: value) { return "FCM app '\(name)': \(keyPrefix)\(key) \(problem)" }
        }
        // Both are the project's number: a sender id from another project than the app's can never reach it.
        if let number = appID.split(separator: ":").dropFirst().first, number != senderID {
            return "FCM app '\(name)': \(keyPrefix)sender_id '\(senderID)' is not the project number in \(keyPrefix)app_id "
                + "'\(appID)' (\(number)): the two come from different Firebase projects; take both from the same app's config"
        }
        return nil
    }

    /// What is wrong with one value of an app (`key` as an `[fcm_apps.NAME]` table names it), said after the key's
    /// name, or nil. An empty value is nil here: which values an app lacks is `problem(keyPrefix:)`'s to say.
    public static func problem(ofKey key: String, value: String) -> String? {
        guard !value.isEmpty else { return nil }
        switch key {
        case "project_id":
            // The id goes into the path of Google's URLs; older projects' ids carry a domain ("example.com:mfa").
            guard value.range(of: "^([a-z0-9.-]+:)?[a-z0-9][a-z0-9-]*$", options: .regularExpression) != nil else {
                return "'\(value)' is not a Firebase project id: one is lowercase letters, digits and '-', like "
                    + "\"example-mfa\" (a web config's projectId, google-services.json's project_info.project_id)"
            }
        case "api_key":
            // Not echoed: a value that is not an API key may be a secret pasted in the wrong place.
            guard value.hasPrefix("AIza"), value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                return "is not a Google API key: one begins with 'AIza' and holds only letters, digits, '-' and '_' (a web "
                    + "config's apiKey, google-services.json's api_key current_key); an FCM server key or a service "
                    + "account's key is not it, and is a secret"
            }
        case "app_id":
            guard value.range(of: "^1:[0-9]+:(web|android|ios):[0-9a-f]+$", options: .regularExpression) != nil else {
                return "'\(value)' is not a Firebase app id: one looks like 1:123456789012:web:0a1b2c3d or "
                    + "1:123456789012:android:0a1b2c3d4e5f6789 (a web config's appId, google-services.json's mobilesdk_app_id)"
            }
        case "sender_id":
            guard value.allSatisfy({ $0.isASCII && $0.isNumber }) else { return "'\(value)' is not a project number" }
        case "vapid_key":
            if let problem = vapidKeyProblem(value) {
                return "'\(value.prefix(100))' \(problem): a VAPID key is an uncompressed P-256 public key in base64url, 87 "
                    + "characters of A-Z, a-z, 0-9, '-' and '_' beginning with 'B' (the Firebase console's Project "
                    + "settings, Cloud Messaging, Web Push certificates); leave it out if the app has none"
            }
        default: break
        }
        return nil
    }

    private static func vapidKeyProblem(_ value: String) -> String? {
        guard value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return value.contains(where: { $0 == "+" || $0 == "/" || $0 == "=" })
                ? "is not base64url (it has base64's '+', '/' or '=' padding)" : "is not base64url"
        }
        guard let bytes = LenientBase64.decode(value) else { return "is not base64url (a length no bytes encode to)" }
        guard bytes.count == 65 else { return "decodes to \(bytes.count) bytes, not 65" }
        guard bytes.first == 0x04 else { return "does not begin with 0x04 (an uncompressed point)" }
        guard (try? P256.KeyAgreement.PublicKey(x963Representation: bytes)) != nil else { return "is not a point on P-256" }
        return nil
    }
}
