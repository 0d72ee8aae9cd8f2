/// Every provider this build speaks: the one list in Core a new provider is added to. Order matters where two could
/// claim the same thing: the first push claim and the first enrollment form that match win, so a push carrying keys
/// of two dialects goes to the earlier one rather than depending on dictionary order.
public enum ProviderRegistry {
    public static let all: [ProviderDescription] = [
        HyphenProvider.description,
        ForgeRockProvider.description,
        PlusAuthProvider.description,
        PrivacyIDEAProvider.description,
        EduMFAProvider.description,
        GuardianProvider.description,
    ]

    public static subscript(provider: Provider) -> ProviderDescription? {
        all.first { $0.provider == provider }
    }

    /// The provider a stored, configured or restored name means, if this build speaks it (`local` is no provider).
    public static func provider(named name: String) -> Provider? {
        self[Provider(rawValue: name)]?.provider
    }

    /// Every provider's name, for messages that list what a name may be.
    public static var names: String { all.map(\.provider.rawValue).joined(separator: ", ") }

    /// Every enrollment URI form, for "unknown scheme" messages.
    public static var enrollmentLabels: [String] { all.flatMap { $0.enrollmentForms.map(\.label) } }

    static func enrollmentForm(for parts: EnrollmentURIParts) -> (ProviderDescription, EnrollmentForm)? {
        for provider in all {
            if let form = provider.enrollmentForms.first(where: { $0.matches(parts) }) { return (provider, form) }
        }
        return nil
    }
}
