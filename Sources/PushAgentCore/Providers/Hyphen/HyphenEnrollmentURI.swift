import Foundation

/// How a Hyphen account is enrolled: our own contract (Hyphen has no QR enrollment; its SDKs sign in with Firebase).
/// `hyphen://account/App:email?secret=APP_SECRET&chain=flow-mainnet|flow-testnet[&api=B64URL][&flow=B64URL]`
/// names the Hyphen app (its name, `X-Hyphen-App-Secret` and chain), the user, and optionally other endpoints than the
/// chain's (`api` for Hyphen's API, `flow` for the access node, base64url like ForgeRock's `r`/`a`). Enrolling makes
/// this device's key; `pushctl hyphen signin` then registers it with Hyphen (docs/providers/hyphen.md).
public struct HyphenEnrollmentURI: Codable, Sendable, Equatable {
    public var appName: String
    public var email: String
    public var appSecret: String
    public var chain: HyphenChain
    public var apiURL: String
    public var accessNodeURL: String

    public init(appName: String, email: String, appSecret: String, chain: HyphenChain, apiURL: String? = nil,
                accessNodeURL: String? = nil) {
        self.appName = appName
        self.email = email
        self.appSecret = appSecret
        self.chain = chain
        self.apiURL = apiURL ?? chain.defaultAPIURL
        self.accessNodeURL = accessNodeURL ?? chain.defaultAccessNodeURL
    }

    public static func parse(_ uri: String) throws(EnrollmentURIError) -> HyphenEnrollmentURI {
        try HyphenEnrollmentURI(EnrollmentURIParts(uri))
    }

    init(_ parts: EnrollmentURIParts) throws(EnrollmentURIError) {
        guard parts.scheme == "hyphen" else {
            throw .wrongProvider(provider: "Hyphen", scheme: parts.scheme, expected: "hyphen://")
        }
        guard parts.host == "account" else { throw .badHost(scheme: "hyphen", host: parts.host, expected: "'account'") }
        guard let (appName, email) = EnrollmentURIParts.splitAtFirstColon(parts.label), !appName.isEmpty, !email.isEmpty
        else { throw .badLabel(scheme: "hyphen", problem: "must be App:email") }
        let p = EnrollmentParameters(scheme: "hyphen", query: parts.query)
        let chainName = try p.required("chain", "Flow network")
        guard let chain = HyphenChain(rawValue: chainName) else {
            throw p.invalid("chain", "Flow network", "must be flow-mainnet or flow-testnet, not '\(EnrollmentURIError.excerpt(chainName))'")
        }
        self.init(
            appName: appName, email: email,
            appSecret: try p.required("secret", "app secret"), chain: chain,
            apiURL: try p.optional("api").map { _ throws(EnrollmentURIError) in try p.httpURL("api", "Hyphen API") },
            accessNodeURL: try p.optional("flow").map { _ throws(EnrollmentURIError) in
                try p.httpURL("flow", "Flow access node")
            })
    }

    /// The URI as pushsim issues it.
    public var uriString: String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~@"))
        func escape(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        var items = [("secret", escape(appSecret)), ("chain", chain.rawValue)]
        if apiURL != chain.defaultAPIURL { items.append(("api", Data(apiURL.utf8).base64URLUnpadded)) }
        if accessNodeURL != chain.defaultAccessNodeURL { items.append(("flow", Data(accessNodeURL.utf8).base64URLUnpadded)) }
        return "hyphen://account/\(escape(appName)):\(escape(email))?" + items.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// For `pushctl enroll --dry-run`: never the app secret.
    public var summary: [String: String] {
        ["issuer": appName, "account": email, "chain": chain.rawValue, "api_url": apiURL,
         "access_node_url": accessNodeURL, "next_step": "pushctl hyphen signin --account ACCOUNT"]
    }
}
