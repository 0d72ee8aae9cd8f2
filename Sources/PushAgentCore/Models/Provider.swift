/// A provider's identifier: the name stored in accounts and approvals and written in control JSON and backups.
/// Each provider declares its own in its folder (`ProviderDescription`); `ProviderRegistry` says which this build
/// speaks. A string, not an enum, so that adding a provider touches no shared type.
public struct Provider: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// A program on this machine asking for a step-up (docs/stepup.md), which no provider sends.
    public static let local = Provider(rawValue: "local")

    /// As the provider spells its own name, for messages to the user.
    public var displayName: String {
        self == .local ? "local step-up" : ProviderRegistry[self]?.displayName ?? rawValue
    }

    /// A stored or restored name this build can act on: a registered provider's, or `local`.
    public static func known(_ name: String) -> Provider? {
        name == local.rawValue ? .local : ProviderRegistry.provider(named: name)
    }

    public var description: String { rawValue }
}
