/// Where application servers reach this relay: `public_url` when configured (behind a TLS proxy, say), else the URL
/// the request reached it by (`http://` + its Host), as `TokenAudience` does. A subscription's endpoint is
/// `<base>/push/<token>`, and a VAPID `aud` must be the base's origin (RFC 8292 §2): pywebpush and the `webpush`
/// library both take scheme and host[:port] of the endpoint as written.
struct WebPushOrigin: Sendable {
    /// The configured public URL without a trailing slash.
    private let publicBase: String?

    init(publicURL: String?) {
        publicBase = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    func endpoint(token: String, requestAuthority: String?) -> String? {
        base(requestAuthority: requestAuthority).map { "\($0)/push/\(token)" }
    }

    /// `scheme://host[:port]` of the base.
    func origin(requestAuthority: String?) -> String? {
        guard let base = base(requestAuthority: requestAuthority), let schemeEnd = base.range(of: "://") else { return nil }
        let pathStart = base[schemeEnd.upperBound...].firstIndex(of: "/") ?? base.endIndex
        return String(base[..<pathStart])
    }

    private func base(requestAuthority: String?) -> String? {
        publicBase ?? requestAuthority.map { "http://\($0)" }
    }
}
