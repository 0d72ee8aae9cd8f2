/// docs/design.md §2 dispatch: each dialect claims a push by the keys of its `data` (its description's `claims`, in
/// its provider's folder), asked in `ProviderRegistry`'s order.
public enum PushRouter {
    public static func route(_ data: [String: String]) -> Provider? {
        ProviderRegistry.all.first { $0.claims(data) }?.provider
    }
}
