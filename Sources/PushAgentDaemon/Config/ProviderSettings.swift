/// The settings sections of the providers (each module's `settingsSection`) and of the push sources, in that order.
struct ProviderSettings: Sendable, Equatable {
    /// Each once: providers of one family share their family's section.
    static let sectionTypes: [any ConfigSection.Type] = (ProviderModules.types.compactMap { $0.settingsSection }
        + [FCMSettings.self]).reduce(into: []) { types, type in
            if !types.contains(where: { $0 == type }) { types.append(type) }
        }

    static var keys: [String] { sectionTypes.flatMap { $0.keys } }

    private var sections: [any ConfigSection] = sectionTypes.map { $0.init() }

    /// A section by its type; each provider's folder names its own (`providers.plusAuth`).
    subscript<Section: ConfigSection>(_ type: Section.Type) -> Section {
        get { sections[Self.index(of: type)] as! Section }
        set { sections[Self.index(of: type)] = newValue }
    }

    /// A section no module declares is a programming error, not a default to fall back on.
    private static func index<Section: ConfigSection>(of type: Section.Type) -> Int {
        guard let index = sectionTypes.firstIndex(where: { $0 == type }) else {
            preconditionFailure("\(Section.self) is not in ProviderSettings.sectionTypes")
        }
        return index
    }

    /// Sets the key in the section that has it; false when none does.
    mutating func set(_ key: String, _ value: String, origin: String) throws(ConfigError) -> Bool {
        guard let index = sections.firstIndex(where: { type(of: $0).keys.contains(key) }) else { return false }
        try sections[index].set(key, value, origin: origin)
        return true
    }

    var summary: [(key: String, value: String)] { sections.flatMap(\.summary) }

    static func == (lhs: ProviderSettings, rhs: ProviderSettings) -> Bool {
        zip(lhs.sections, rhs.sections).allSatisfy { $0.isEqual(to: $1) }
    }
}
