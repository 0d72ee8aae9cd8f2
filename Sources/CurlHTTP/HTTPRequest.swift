import Foundation

public struct HTTPRequest: Sendable {
    public var method: String
    /// For Unix sockets the host part is only used for the `Host` header, e.g. "http://localhost/v1/status".
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: Data?
    public var unixSocketPath: String?
    /// Whole-transfer limit, connect included.
    public var timeout: Duration
    public var connectTimeout: Duration
    public var maxResponseBytes: Int
    /// Check the server's TLS certificate and host name (the default; turn off only where a provider asks to).
    public var verifyTLS: Bool

    public init(
        method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: Data? = nil,
        unixSocketPath: String? = nil, timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10),
        maxResponseBytes: Int = 8 << 20, verifyTLS: Bool = true
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.unixSocketPath = unixSocketPath
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxResponseBytes = maxResponseBytes
        self.verifyTLS = verifyTLS
    }

    /// Names the request in error messages, so a failure says which endpoint (and socket) it was.
    var target: String {
        let request = "\(method) \(url)"
        return unixSocketPath.map { "\(request) over unix socket \($0)" } ?? request
    }
}
