import Foundation

/// An Android app's google-services.json, read for the values a web-push registration needs, as the Google Services
/// Gradle plugin reads it into the app's resources: `google_app_id` (a client's `mobilesdk_app_id`),
/// `google_api_key` (its `api_key[].current_key`), `gcm_defaultSenderId` (`project_number`) and `project_id`. A
/// provider whose own app is Android or iOS only has no web config; these are what firebase-messaging registers with.
public struct GoogleServicesFile: Sendable {
    /// One Android app of the project: the file has a client per app registered in it.
    public struct Client: Sendable, Equatable {
        public var packageName: String
        public var appID: String
        public var apiKey: String
    }

    public var projectID: String
    public var projectNumber: String
    public var clients: [Client]

    /// Why a file could not be read, in words that say what to do.
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public init(json: Data) throws(Problem) {
        guard let file = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw Problem(description: "not a JSON object: give the google-services.json of the provider's Android app")
        }
        guard let project = file["project_info"] as? [String: Any] else {
            throw Problem(description: "no project_info: not a google-services.json (a Firebase Android app's "
                + "config, from the Firebase console's Project settings, General, Your apps, or the app's package)")
        }
        projectID = project["project_id"] as? String ?? ""
        projectNumber = project["project_number"] as? String ?? ""
        clients = (file["client"] as? [[String: Any]] ?? []).map { client in
            let info = client["client_info"] as? [String: Any]
            let android = info?["android_client_info"] as? [String: Any]
            return Client(packageName: android?["package_name"] as? String ?? "",
                          appID: info?["mobilesdk_app_id"] as? String ?? "",
                          apiKey: (client["api_key"] as? [[String: Any]])?.lazy.compactMap { $0["current_key"] as? String }
                              .first { !$0.isEmpty } ?? "")
        }
    }

    /// The profile of the client for `packageName`, or of the only client when none is named; refused when the
    /// choice is ambiguous or the values are missing or malformed (the problem names which).
    public func profile(name: String, packageName: String?) throws(Problem) -> FirebaseAppProfile {
        guard !clients.isEmpty else {
            throw Problem(description: "no client: no Android app is registered in it")
        }
        let packages = clients.map { $0.packageName.isEmpty ? "(no package name)" : $0.packageName }.joined(separator: ", ")
        let client: Client
        if let packageName {
            guard let named = clients.first(where: { $0.packageName == packageName }) else {
                throw Problem(description: "no client for package \(packageName); its packages: \(packages)")
            }
            client = named
        } else {
            guard clients.count == 1 else {
                throw Problem(description: "\(clients.count) clients (\(packages)): say which is the provider's app "
                    + "with --package")
            }
            client = clients[0]
        }
        let missing = [("project_info.project_id", projectID), ("project_info.project_number", projectNumber),
                       ("client_info.mobilesdk_app_id", client.appID), ("api_key.current_key", client.apiKey)]
            .filter { $0.1.isEmpty }.map(\.0)
        guard missing.isEmpty else {
            throw Problem(description: "lacks \(missing.joined(separator: ", ")), which registering needs: is it the "
                + "google-services.json of a Firebase Android app?")
        }
        let profile = FirebaseAppProfile(name: name, projectID: projectID, apiKey: client.apiKey, appID: client.appID,
                                         senderID: projectNumber)
        if let problem = profile.problem() { throw Problem(description: problem) }
        return profile
    }
}
