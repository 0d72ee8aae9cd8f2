/// One provider, as the rest of the agent sees it: the single place its identity, enrollment URIs, push claim and
/// abilities are declared. Each provider's folder defines its own; `ProviderRegistry` lists them. Its settings are
/// the daemon's business (its module's settings section).
public struct ProviderDescription: Sendable {
    /// What the provider's protocol can do, for the parts that offer it (the desktop's buttons, the poller, TOTP).
    public struct Capabilities: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The user picks the number the sign-in screen shows.
        public static let numberMatching = Capabilities(rawValue: 1 << 0)
        /// A deny can say "fraud", and the provider acts on it.
        public static let fraudReport = Capabilities(rawValue: 1 << 1)
        /// Some pushes ask the user to prove who they are before approving.
        public static let userVerification = Capabilities(rawValue: 1 << 2)
        /// Pushes can also be fetched from the provider's server (for accounts without a push token).
        public static let pollSource = Capabilities(rawValue: 1 << 3)
        /// The provider can be told a device's new push token; else a new registration means enrolling again.
        public static let pushTokenUpdate = Capabilities(rawValue: 1 << 4)
        /// Accounts may carry an offline TOTP secret.
        public static let totp = Capabilities(rawValue: 1 << 5)
    }

    public let provider: Provider
    /// As the provider spells its own name, for messages to the user.
    public let displayName: String
    /// The enrollment URIs it reads, asked in the registry's order.
    public let enrollmentForms: [EnrollmentForm]
    /// Whether a push's `data` is in this provider's dialect (docs/design.md §2 dispatch).
    public let claims: @Sendable ([String: String]) -> Bool
    public let capabilities: Capabilities
    /// What the user must do after enrolling before pushes can arrive, given the account's id; nil when nothing.
    public var nextStep: (@Sendable (String) -> String)? = nil
}

/// One kind of enrollment URI a provider reads: its scheme, its type (the authority) when the scheme is shared, and
/// which parameters make it this provider's when one of them is there (an `otpauth://totp` with `enrollment_tx_id`
/// or `base_url` is Auth0 Guardian's, one with neither a plain TOTP URI).
public struct EnrollmentForm: Sendable {
    public let scheme: String
    public let host: String?
    public let distinguishingParameters: [String]
    let read: @Sendable (EnrollmentURIParts) throws(EnrollmentURIError) -> any ProviderEnrollmentURI

    init(scheme: String, host: String? = nil, distinguishingParameters: [String] = [],
         read: @escaping @Sendable (EnrollmentURIParts) throws(EnrollmentURIError) -> any ProviderEnrollmentURI) {
        self.scheme = scheme
        self.host = host
        self.distinguishingParameters = distinguishingParameters
        self.read = read
    }

    /// As messages name it: `pushauth://`, `otpauth://push`, `otpauth://totp with enrollment_tx_id`.
    public var label: String {
        "\(scheme)://\(host ?? "")" + (distinguishingParameters.first.map { " with \($0)" } ?? "")
    }

    func matches(_ parts: EnrollmentURIParts) -> Bool {
        parts.scheme == scheme && (host.map { $0 == parts.host } ?? true)
            && (distinguishingParameters.isEmpty || distinguishingParameters.contains { parts.query[$0] != nil })
    }
}
