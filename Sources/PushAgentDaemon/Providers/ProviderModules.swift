import PushAgentCore

/// The providers this daemon speaks: the one list in the daemon a new dialect is added to (its Core side is in
/// `ProviderRegistry`).
struct ProviderModules: Sendable {
    static let types: [any ProviderModule.Type] = [
        ForgeRockModule.self,
        PlusAuthModule.self,
        PrivacyIDEAModule.self,
        EduMFAModule.self,
        HyphenModule.self,
        GuardianModule.self,
    ]

    let all: [any ProviderModule]

    init(_ context: ProviderContext) {
        self.init(Self.types.map { $0.init(context: context) })
    }

    init(_ modules: [any ProviderModule]) { all = modules }

    subscript(provider: Provider) -> (any ProviderModule)? { all.first { $0.provider == provider } }

    var pushSources: [any PushSource] { all.flatMap(\.pushSources) }
}
