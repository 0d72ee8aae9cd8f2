import Foundation

/// An HTTP request a provider's answer or enrollment needs, described without sending it (the core does no I/O).
public struct OutboundRequest: Sendable, Equatable {
    public var method: String
    public var url: String
    public var headers: [Header]
    public var body: Data
    /// False only where the provider itself told the device not to check TLS certificates (privacyIDEA `sslverify=0`).
    public var verifyTLS: Bool

    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(method: String, url: String, headers: [Header], body: Data, verifyTLS: Bool = true) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.verifyTLS = verifyTLS
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
