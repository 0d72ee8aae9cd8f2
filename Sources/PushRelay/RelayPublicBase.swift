import Foundation

/// Where senders reach this relay: `public_url` when one is configured (behind a TLS proxy, say), else the URL a
/// request reached it by (`http://` + its Host, which the client chooses). The token endpoint's own audience, and Web
/// Push endpoints with the origin their VAPID names, are both built on it.
struct RelayPublicBase: Sendable {
    /// The configured public URL without a trailing slash.
    let configured: String?

    init(publicURL: String?) {
        configured = publicURL.flatMap(Self.validated)
    }

    /// `publicURL` without a trailing slash, or nil when it is not an http or https URL with a host and without query,
    /// fragment or user: what `--public-url` and `public_url` take.
    static func validated(_ publicURL: String) -> String? {
        guard let url = URLComponents(string: publicURL), ["http", "https"].contains(url.scheme?.lowercased()),
              url.host?.isEmpty == false, url.query == nil, url.fragment == nil, url.user == nil
        else { return nil }
        return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
    }

    func base(requestAuthority: String?) -> String? {
        configured ?? requestAuthority.map { "http://\($0)" }
    }
}
