import Foundation

/// A URL's origin (RFC 6454 §4) reduced to what makes two spellings the same: scheme and host in lower case, the
/// default port made explicit (`https://Push.example.net` is `https://push.example.net:443`). VAPID's `aud` and the
/// relay's token audience are compared by it, so a sender that writes the default port, or capitals, is not refused.
public struct URLOrigin: Equatable, Sendable {
    public let scheme: String
    public let host: String
    public let port: Int

    /// The origin of `url` and its path; nil unless `url` is absolute, with a host, a port that is explicit or the
    /// scheme's default (http, https), and no user, query or fragment.
    public static func parse(_ url: String) -> (origin: URLOrigin, path: String)? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
              let host = parts.host?.lowercased(), !host.isEmpty, parts.query == nil, parts.fragment == nil, parts.user == nil,
              let port = parts.port ?? ["http": 80, "https": 443][scheme]
        else { return nil }
        return (URLOrigin(scheme: scheme, host: host, port: port), parts.path)
    }
}
