import Logging
import PushAgentCore
import Synchronization

/// This machine's binding fingerprint: `/etc/machine-id` (or `machine_id_file`) plus `binding_identity`. Read once,
/// and again when a reload changes either setting.
final class MachineIdentity: Sendable {
    private struct Source: Equatable {
        var file: String
        var configured: String?
    }

    private let read = Mutex<(source: Source, fingerprint: String?)?>(nil)
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    func fingerprint(_ settings: PlusAuthSettings) -> String? {
        let source = Source(file: settings.machineIDFile, configured: settings.bindingIdentity)
        if let last = read.withLock({ $0 }), last.source == source { return last.fingerprint }
        let fingerprint = Self.fingerprint(of: source, logger: logger)
        read.withLock { $0 = (source, fingerprint) }
        return fingerprint
    }

    private static func fingerprint(of source: Source, logger: Logger) -> String? {
        let machineID = try? String(contentsOfFile: source.file, encoding: .utf8)
        if machineID == nil {
            logger.warning("cannot read the machine id from \(source.file); accounts bound to this machine rely on binding_identity alone")
        }
        let fingerprint = PlusAuthBinding.fingerprint(machineID: machineID, configuredIdentity: source.configured)
        if fingerprint == nil {
            logger.warning("this machine has no identity to bind accounts to (no machine id, no binding_identity): PlusAuth pushes asking for binding will be refused")
        }
        return fingerprint
    }
}
