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

    public func header(_ name: String) -> String? { firstHeader(name, in: headers) }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// A response whose body is read as it arrives.
public struct HTTPStreamResponse: Sendable {
    public let status: Int
    public let headers: [(name: String, value: String)]
    public let body: AsyncThrowingStream<Data, any Error>

    public func header(_ name: String) -> String? { firstHeader(name, in: headers) }

    /// The body split at line feeds (the last line may lack one); for NDJSON and similar line protocols.
    public var lines: AsyncThrowingStream<Data, any Error> {
        let body = self.body
        return AsyncThrowingStream { continuation in
            let reader = Task {
                var pending = Data()
                do {
                    for try await chunk in body {
                        pending.append(chunk)
                        while let newline = pending.firstIndex(of: 0x0A) {
                            continuation.yield(Data(pending[pending.startIndex..<newline]))
                            pending.removeSubrange(pending.startIndex...newline)
                        }
                    }
                    if !pending.isEmpty { continuation.yield(pending) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
    }
}

private func firstHeader(_ name: String, in headers: [(name: String, value: String)]) -> String? {
    headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
}
