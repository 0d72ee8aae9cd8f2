/// docs/design.md §2 dispatch: each dialect claims a push by the keys of its `data` (its `claims` function, in its
/// provider's folder). Order matters: the first claim wins, so a message carrying keys of two dialects goes to the
/// earlier one rather than depending on dictionary order.
public enum PushRouter {
    public typealias Claim = @Sendable ([String: String]) -> Bool

    /// Every dialect, in the order its claim is asked.
    public static let dialects: [(provider: Provider, claims: Claim)] = [
        (.hyphen, HyphenPush.claims),
        (.forgerock, ForgeRockPush.claims),
        (.plusauth, PlusAuthPush.claims),
        (.privacyidea, PrivacyIDEAPush.claims),
    ]

    public static func route(_ data: [String: String]) -> Provider? {
        dialects.first { $0.claims(data) }?.provider
    }
}
