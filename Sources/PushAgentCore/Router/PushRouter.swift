/// docs/design.md §2 dispatch: each dialect claims a push by the keys of its `data` (its description's `claims`, in
/// its provider's folder), asked in `ProviderRegistry`'s order.
public enum PushRouter {
    public static func route(_ data: [String: String]) -> Provider? {
        claimants(data).first
    }

    /// Every provider whose dialect the push is in, in order: providers of one family (privacyIDEA and eduMFA) claim
    /// the same pushes, and the one that has the account the push names takes it.
    public static func claimants(_ data: [String: String]) -> [Provider] {
        ProviderRegistry.all.filter { $0.claims(data) }.map(\.provider)
    }
}
