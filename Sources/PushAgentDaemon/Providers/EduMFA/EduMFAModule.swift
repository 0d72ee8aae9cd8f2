import PushAgentCore

/// eduMFA's tokens are privacyIDEA's (protocols.md §9): the same module under eduMFA's description, with a poll
/// source of its own.
enum EduMFAFamily: PrivacyIDEAFamily {
    static var descriptor: ProviderDescription { EduMFAProvider.description }
}

typealias EduMFAModule = PrivacyIDEADialectModule<EduMFAFamily>
