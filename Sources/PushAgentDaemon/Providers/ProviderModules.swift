import PushAgentCore

/// The providers this daemon speaks: the one list a new dialect is added to (with its settings section in
/// `ProviderSettings` and its claim in `PushRouter.dialects`).
struct ProviderModules: Sendable {
    let all: [any ProviderModule]

    init(_ context: ProviderContext) {
        self.init([
            ForgeRockModule(context),
            PlusAuthModule(context),
            PrivacyIDEAModule(context),
            HyphenModule(context),
        ])
    }

    init(_ modules: [any ProviderModule]) { all = modules }

    subscript(provider: Provider) -> (any ProviderModule)? { all.first { $0.provider == provider } }

    var pushSources: [any PushSource] { all.flatMap(\.pushSources) }
}
