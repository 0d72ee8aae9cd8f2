public enum HTTPClientError: Error, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case couldNotResolveHost(String)
    /// Refused, unreachable, no such socket file, permission denied.
    case couldNotConnect(String)
    case tls(String)
    case timedOut(String)
    case responseTooLarge(limit: Int)
    /// Any other libcurl failure; `code` is the CURLcode.
    case transport(code: Int, message: String)

    public var description: String {
        switch self {
        case .invalidURL(let message): "Invalid URL: \(message)"
        case .couldNotResolveHost(let message): "Could not resolve host: \(message)"
        case .couldNotConnect(let message): "Could not connect: \(message)"
        case .tls(let message): "TLS handshake or certificate check failed: \(message)"
        case .timedOut(let message): "Request timed out: \(message)"
        case .responseTooLarge(let limit): "Response body exceeds the limit of \(limit) bytes"
        case .transport(let code, let message): "HTTP transfer failed (curl error \(code)): \(message)"
        }
    }
}
