import ControlWire
import Foundation
import Logging
import NIOCore
import NIOSSL
import PushAgentCore
import PushAgentStore
import Synchronization
import SystemdSupport

/// The TLS context MCS connections use, made again only when the extra-CA file (its path, or its contents: a rotated
/// corporate CA) changed, not per reconnect.
final class TLSContexts: Sendable {
    private struct Key: Equatable {
        var caFile: String?
        var modified: Date?
    }

    private let cached = Mutex<(key: Key, context: NIOSSLContext)?>(nil)
    /// The system's CAs as a hashed directory (`update-ca-certificates` makes it), from which BoringSSL reads the
    /// one certificate a chain needs when it needs it. NIOSSL's default also parses the whole bundle file into
    /// memory (138 CAs, 1.4 MiB here), for as long as the context lives. Without hash links: NIOSSL's default.
    let systemCADirectory: String

    init(systemCADirectory: String = "/etc/ssl/certs") {
        self.systemCADirectory = systemCADirectory
    }

    func context(caFile: String?) throws -> NIOSSLContext {
        let key = Key(caFile: caFile, modified: caFile.flatMap {
            (try? FileManager.default.attributesOfItem(atPath: $0))?[.modificationDate] as? Date
        })
        return try cached.withLock { cached in
            if let cached, cached.key == key { return cached.context }
            var configuration = TLSConfiguration.makeClientConfiguration()
            if Self.hasHashedCertificates(systemCADirectory) { configuration.trustRoots = .file(systemCADirectory) }
            if let caFile { configuration.additionalTrustRoots = [.file(caFile)] }
            let context = try NIOSSLContext(configuration: configuration)
            cached = (key, context)
            return context
        }
    }

    /// Whether `directory` holds OpenSSL's `<subject hash>.0` links, without which a lookup by directory finds nothing.
    static func hasHashedCertificates(_ directory: String) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).contains {
            $0.hasSuffix(".0") && $0.count == 10 && $0.prefix(8).allSatisfy(\.isHexDigit)
        }
    }
}
