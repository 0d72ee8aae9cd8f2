import Foundation

/// The HTTP proxy that connections to a TLS service go through, read from the environment as curl reads it (so
/// pushagentd's HTTPS requests, made by libcurl, and its MCS connection, tunnelled with CONNECT, agree):
/// `https_proxy`, else `HTTPS_PROXY`; `no_proxy`/`NO_PROXY` lists hosts reached directly.
public struct HTTPSProxy: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// `user:password` from the proxy URL, sent as Basic credentials.
    public var credentials: String?

    public init(host: String, port: Int, credentials: String? = nil) {
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// The proxy for a connection to `host`, nil for a direct one; a malformed proxy URL is an error that says so,
    /// rather than a silent direct connection a firewall then drops. `all_proxy` serves when no https one is set,
    /// as in curl.
    public static func forHost(_ host: String, environment: [String: String]) throws(HTTPSProxyError) -> HTTPSProxy? {
        let names = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
        guard let value = names.lazy.compactMap({ nonEmpty(environment[$0]) }).first else { return nil }
        if let exceptions = nonEmpty(environment["no_proxy"]) ?? nonEmpty(environment["NO_PROXY"]),
           bypasses(host, exceptions) { return nil }
        return try parse(value)
    }

    /// `[http://][user:password@]host[:port]`, as curl takes it; the port defaults to 1080, curl's. A proxy spoken
    /// to over TLS (`https://`) or SOCKS is not supported, and says so.
    public static func parse(_ value: String) throws(HTTPSProxyError) -> HTTPSProxy {
        let text = value.contains("://") ? value : "http://" + value
        guard let url = URLComponents(string: text), url.scheme?.lowercased() == "http",
              let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/" else {
            throw HTTPSProxyError("the proxy '\(withoutCredentials(text))' (https_proxy/HTTPS_PROXY/all_proxy) is not an http://host:port URL: MCS can only be tunnelled through a plain HTTP proxy")
        }
        // Decoded once: what the URL says, percent-escapes and all.
        let user = url.percentEncodedUser.map { $0.removingPercentEncoding ?? $0 }
        let password = url.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 }
        return HTTPSProxy(host: host, port: url.port ?? 1080, credentials: user.map { user in password.map { user + ":" + $0 } ?? user })
    }

    /// The URL with any `user:password@` left out, for messages and logs.
    static func withoutCredentials(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + "…@" + String(url[url.index(after: at)...])
    }

    /// The CONNECT request (RFC 9110 §9.3.6) that asks the proxy for a tunnel to `host:port`.
    public func connectRequest(to host: String, port: Int) -> String {
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var request = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let credentials { request += "Proxy-Authorization: Basic \(Data(credentials.utf8).base64EncodedString())\r\n" }
        return request + "\r\n"
    }

    /// curl's no_proxy: `*`, or a comma-separated list of names (each also matching its subdomains, with or
    /// without a leading dot) and addresses.
    static func bypasses(_ host: String, _ exceptions: String) -> Bool {
        let host = host.lowercased()
        return exceptions.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.contains { entry in
            let name = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            return entry == "*" || (!name.isEmpty && (host == name || host.hasSuffix("." + name)))
        }
    }

    private static func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
}

public struct HTTPSProxyError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What a proxy answered to CONNECT: nil until its head is complete; then whether the tunnel is open.
public enum HTTPConnectReply {
    public enum Outcome: Equatable {
        /// The tunnel is open; `headLength` bytes were the proxy's own.
        case established(headLength: Int)
        case refused(String)
    }

    /// A proxy's head longer than this is not an answer to CONNECT.
    public static let maximumHeadBytes = 16 * 1024

    public static func parse(_ bytes: some Collection<UInt8>) -> Outcome? {
        let data = Array(bytes)
        guard let end = data.firstRange(of: Array("\r\n\r\n".utf8)) else {
            return data.count > maximumHeadBytes ? .refused("the proxy's answer has no end") : nil
        }
        let statusLine = String(decoding: data[..<end.lowerBound], as: UTF8.self)
            .split(separator: "\r\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]) else {
            return .refused("the proxy did not answer CONNECT with HTTP: '\(statusLine.prefix(80))'")
        }
        guard (200..<300).contains(code) else {
            let hint = code == 407 ? " (it wants credentials: http://user:password@host:port)" : ""
            return .refused("the proxy refused the tunnel: \(statusLine.prefix(120))\(hint)")
        }
        return .established(headLength: end.upperBound)
    }
}
