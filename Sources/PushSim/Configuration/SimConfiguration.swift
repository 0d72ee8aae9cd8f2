import Foundation

/// `HOST:PORT` as `--listen` takes it; IPv6 hosts in brackets (`[::1]:0`). Port 0 picks a free port.
public struct SimAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    /// As it goes into a URL.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

// In an extension, so that Swift still writes the memberwise initialiser (which this module's servers use).
extension SimAddress {
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains("[") else { return nil }
        self.init(host: host, port: port)
    }
}

/// How `pushsim serve` (or `pushsim <provider> serve`) runs.
public struct SimConfiguration: Sendable {
    public var listen: SimAddress
    /// The relay's base URL; pushes go to `{relay}/v1/projects/{project}/messages:send`.
    public var relayURL: String
    public var senderKey: String
    public var project: String
    /// The base URL agents reach this server at, put into enrollment URIs; default `http://{listen}` (actual port).
    public var publicURL: String?

    public init(listen: SimAddress, relayURL: String, senderKey: String, project: String, publicURL: String? = nil) {
        self.listen = listen
        self.relayURL = relayURL
        self.senderKey = senderKey
        self.project = project
        self.publicURL = publicURL
    }
}
