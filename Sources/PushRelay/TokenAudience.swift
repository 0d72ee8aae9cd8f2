import Foundation
import WebPushWire

/// The `aud` values a JWT-bearer assertion may name. Google's client libraries always name Google's token URL,
/// whatever the service-account file's `token_uri` says, so those are accepted; other clients name the URL they
/// post to, which is this relay's own: `/token` under its `RelayPublicBase`.
struct TokenAudience: Sendable {
    static let google: Set<String> = [
        "https://oauth2.googleapis.com/token",
        // Older token URLs still found in service-account files and clients.
        "https://accounts.google.com/o/oauth2/token",
        "https://www.googleapis.com/oauth2/v4/token",
    ]

    let publicBase: RelayPublicBase

    init(publicURL: String?) {
        publicBase = RelayPublicBase(publicURL: publicURL)
    }

    /// The accepted values, for an error message.
    func expected(requestAuthority: String?) -> [String] {
        ownTokenURLs(requestAuthority: requestAuthority) + Self.google.sorted()
    }

    func accepts(_ audience: String, requestAuthority: String?) -> Bool {
        if Self.google.contains(audience) { return true }
        guard let presented = Endpoint(audience) else { return false }
        return ownTokenURLs(requestAuthority: requestAuthority).contains { Endpoint($0) == presented }
    }

    /// A configured public URL pins the relay's own audience; without one the Host header, which the client
    /// chooses, stands in for it.
    private func ownTokenURLs(requestAuthority: String?) -> [String] {
        [publicBase.base(requestAuthority: requestAuthority).map { $0 + "/token" }].compactMap { $0 }
    }

    /// A URL reduced to what makes two spellings the same endpoint: its origin (`http://relay/token` is
    /// `http://relay:80/token`) and its path.
    private struct Endpoint: Equatable {
        var origin: URLOrigin
        var path: String

        init?(_ text: String) {
            guard let (origin, path) = URLOrigin.parse(text) else { return nil }
            (self.origin, self.path) = (origin, path)
        }
    }
}
