import Logging

enum LogMetadata {
    /// The entry's metadata by swift-log's precedence: handler, then provider, then the call site.
    /// An attached error is kept under `error` unless the call site already used that key.
    static func merge(
        handler: Logger.Metadata,
        provider: Logger.MetadataProvider?,
        event: LogEvent
    ) -> Logger.Metadata {
        var merged = handler
        if let provided = provider?.get() {
            merged.merge(provided) { _, new in new }
        }
        if let local = event.metadata {
            merged.merge(local) { _, new in new }
        }
        if let error = event.error, merged["error"] == nil {
            merged["error"] = .string(String(describing: error))
        }
        return merged
    }

    /// One string per value with sorted dictionary keys, so equal metadata always renders the same
    /// (swift-log's own `description` follows Dictionary's random order).
    static func flatten(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let s):
            s
        case .stringConvertible(let c):
            c.description
        case .array(let items):
            "[" + items.map(flatten).joined(separator: ", ") + "]"
        case .dictionary(let dict):
            "{" + dict.sorted { $0.key < $1.key }.map { "\($0.key)=\(flatten($0.value))" }.joined(separator: ", ") + "}"
        }
    }
}
