/// A group of settings that belongs to one part of the daemon (a provider's), kept beside that part. Its keys sit
/// in pushagentd.toml's top level like every other key, and a reload applies all of them.
protocol ConfigSection: Sendable, Equatable {
    /// Every key at its default.
    init()

    /// Its keys, in the order `--check-config` shows them.
    static var keys: [String] { get }

    /// Sets one of its keys from text, validating it; `origin` names where a bad value came from. Paths arrive
    /// absolute (ConfigPaths).
    mutating func set(_ key: String, _ value: String, origin: String) throws(ConfigError)

    /// Each key's value without secrets, for `--check-config` and the reload's list of changes.
    var summary: [(key: String, value: String)] { get }
}

enum ConfigValue {
    /// A number setting as every key validates it: within `range`, or an error that says so.
    static func number(_ value: String, key: String, in range: ClosedRange<Double>, origin: String) throws(ConfigError)
        -> Double {
        guard let n = Double(value), range.contains(n) else {
            throw ConfigError("\(origin): '\(key)' must be a number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
        }
        return n
    }
}

extension ConfigSection {
    func isEqual(to other: any ConfigSection) -> Bool { (other as? Self) == self }
}
