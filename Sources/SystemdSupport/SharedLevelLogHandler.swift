import Logging
import Synchronization

/// The level of every handler `LoggingSetup` installed; a config reload changes it for the whole process at once.
public enum ProcessLogLevel {
    private static let index = Atomic<Int>(Logger.Level.allCases.firstIndex(of: .info)!)

    public static var current: Logger.Level {
        get { Logger.Level.allCases[index.load(ordering: .relaxed)] }
        set { index.store(Logger.Level.allCases.firstIndex(of: newValue)!, ordering: .relaxed) }
    }
}

/// Forwards to `base` at `ProcessLogLevel.current`, unless a call site set a level on its own logger.
struct SharedLevelLogHandler<Base: LogHandler>: LogHandler {
    var base: Base
    private var localLevel: Logger.Level?

    init(_ base: Base) { self.base = base }

    var logLevel: Logger.Level {
        get { localLevel ?? ProcessLogLevel.current }
        set { localLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) { base.log(event: event) }
}
