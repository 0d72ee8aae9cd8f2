import Foundation

/// A response's status and headers: all a trigger looks at, whichever HTTP client produced the response.
public struct ResponseHead: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]

    public init(status: Int, headers: [(name: String, value: String)]) {
        self.status = status
        self.headers = headers
    }

    /// Every value of a header, in received order (names are case-insensitive).
    public func values(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    public func value(_ name: String) -> String? { values(name).first }
}

/// What the server asked for, as a trigger read it from a response.
public struct StepUpChallenge: Sendable, Equatable, CustomStringConvertible {
    /// What answers the challenge: a one-time code (GitHub, npm) or the device's signed receipt.
    public enum Credential: String, Sendable {
        case oneTimeCode = "one-time code", receipt
    }

    /// The trigger's name: `header-pair`, `rfc9470`, `github-otp`, `npm-otp`, or a custom trigger's.
    public var trigger: String
    /// The server's origin (`https://api.example.com:8443`); step-ups of different servers never share a flow.
    public var origin: String
    public var credential: Credential
    public var placement: TokenPlacement
    public var businessNumber: String?
    /// Why the server asks, in its words (`error_description`, the delivery method…), shown to the user.
    public var reason: String?
    /// RFC 9470 `acr_values`, in order of preference.
    public var acrValues: [String]
    /// RFC 9470 `max_age`, seconds.
    public var maxAge: Int?

    /// Public (not the memberwise one) because custom triggers outside this module build their challenges.
    public init(trigger: String, origin: String, credential: Credential, placement: TokenPlacement,
                businessNumber: String? = nil, reason: String? = nil, acrValues: [String] = [], maxAge: Int? = nil) {
        self.trigger = trigger
        self.origin = origin
        self.credential = credential
        self.placement = placement
        self.businessNumber = businessNumber
        self.reason = reason
        self.acrValues = acrValues
        self.maxAge = maxAge
    }

    /// Challenged requests with equal keys share one flow: same trigger, server, business number and requirement.
    public var key: String {
        [trigger, origin, businessNumber ?? "", acrValues.joined(separator: " "), maxAge.map(String.init) ?? ""]
            .joined(separator: "\u{1F}")
    }

    public var description: String {
        var text = "\(trigger) step-up challenge from \(origin)"
        if let businessNumber { text += " (business number \(businessNumber))" }
        if let reason { text += ": \(reason)" }
        return text
    }
}

/// Where the retry carries the token: a header, with a prefix such as `Bearer ` for `Authorization`.
public struct TokenPlacement: Sendable, Equatable {
    public var header: String
    public var prefix: String

    public init(header: String, prefix: String = "") {
        self.header = header
        self.prefix = prefix
    }

    public func field(for token: StepUpToken) -> StepUpHeader { StepUpHeader(name: header, value: prefix + token.value) }
}

/// The header the retry adds (replacing any of the same name).
public struct StepUpHeader: Sendable, Equatable {
    public var name: String
    public var value: String
}

/// What a flow yields; a credential, so it never prints itself.
public struct StepUpToken: Sendable, Equatable, CustomStringConvertible {
    public let value: String
    public init(_ value: String) { self.value = value }
    public var description: String { "StepUpToken(\(value.count) characters, redacted)" }
}

extension StepUpChallenge {
    /// `scheme://host[:port]` of a URL: challenges of different servers never share a flow.
    public static func origin(of url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else {
            return url
        }
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme.lowercased())://\(shownHost.lowercased())" + (components.port.map { ":\($0)" } ?? "")
    }
}
