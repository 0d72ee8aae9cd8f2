import Foundation

/// Where a Guardian tenant's device API lives (protocols.md §10.1). The QR code's `base_url` names the
/// service; on Auth0's own Guardian hosts the API is at its root, elsewhere (the tenant's or a custom domain) under
/// `/appliance-mfa`, which the SDKs append themselves unless the URL already ends in it.
public enum GuardianAPIBase {
    static let appliancePath = "appliance-mfa"

    /// The API base for a `base_url`, without a trailing slash: `https://t.guardian.auth0.com`,
    /// `https://t.eu.auth0.com/appliance-mfa`. nil when it is not an http(s) URL with a host.
    public static func resolve(_ baseURL: String) -> String? {
        guard var components = URLComponents(string: baseURL),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        components.query = nil
        components.fragment = nil
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        let segments = path.split(separator: "/")
        if !segments.contains(Substring(appliancePath)) && !isGuardianHost(host) {
            path += "/" + appliancePath
        }
        components.path = path
        return components.string
    }

    /// `guardian.auth0.com` and `<tenant>.guardian.auth0.com`, or one regional label in between
    /// (`<tenant>.guardian.eu.auth0.com`): the hosts every SDK leaves without `/appliance-mfa`.
    static func isGuardianHost(_ host: String) -> Bool {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 3, labels.suffix(2) == ["auth0", "com"] else { return false }
        let rest = labels.dropLast(2)
        if rest.last == "guardian" { return true }
        return rest.count >= 2 && rest[rest.endIndex - 2] == "guardian" && !rest.last!.isEmpty
    }

    /// `<api base>/api/<path>`.
    static func endpoint(_ apiBase: String, _ path: String) -> String {
        apiBase + "/api/" + path
    }
}
