import Foundation

/// Any HTTP status, 4xx and 5xx included: the status is data for the caller, not a transport failure.
public struct HTTPResponse: Sendable {
    public let status: Int
    /// In received order, names as received.
    public let headers: [(name: String, value: String)]
    public let body: Data

    public init(status: Int, headers: [(name: String, value: String)], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}
