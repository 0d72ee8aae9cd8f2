/// Where application servers reach this relay (`RelayPublicBase`): a subscription's endpoint is
/// `<base>/push/<token>`, and a VAPID `aud` must be the base's origin (RFC 8292 §2): pywebpush and the `webpush`
/// library both take scheme and host[:port] of the endpoint as written.
struct WebPushOrigin: Sendable {
    private let publicBase: RelayPublicBase

    init(publicURL: String?) {
        publicBase = RelayPublicBase(publicURL: publicURL)
    }

    func endpoint(token: String, requestAuthority: String?) -> String? {
        publicBase.base(requestAuthority: requestAuthority).map { "\($0)/push/\(token)" }
    }

    /// `scheme://host[:port]` of the base.
    func origin(requestAuthority: String?) -> String? {
        guard let base = publicBase.base(requestAuthority: requestAuthority), let schemeEnd = base.range(of: "://") else { return nil }
        let pathStart = base[schemeEnd.upperBound...].firstIndex(of: "/") ?? base.endIndex
        return String(base[..<pathStart])
    }
}
