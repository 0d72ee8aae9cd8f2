import Foundation
import HTTPTypes
import Logging
import NIOCore

/// A request as the relay's routes get it: its head, its whole body (or why that could not be read), the path's
/// named segments and query, and how to answer it.
struct RelayRequest: Sendable {
    let head: HTTPRequest
    let body: Result<ByteBuffer, BodyReadFailure>
    /// The path segments its route names with a leading ":" (`/v1/devices/:device_id`).
    let parameters: [Substring: Substring]
    let logger: Logger
    /// Answers the request; for a route that answers after it has returned (a waiting long-poll).
    let responder: RelayResponder
    /// The TCP peer: the client, or the proxy in front of the relay.
    let clientAddress: SocketAddress?

    var headers: HTTPFields { head.headerFields }

    /// The answer to a request whose route failed in a way it has no answer for, logged here with what failed.
    func internalError(_ error: any Error) -> RelayResponse {
        logger.error("\(head.method) \(head.path ?? "") failed: \(error)")
        return .internalError
    }

    /// The query's parameters, percent-decoded; the first of a repeated name counts.
    var query: [String: String] { queryParameters(head.path ?? "") }

    /// The body as `Data`, refused past `limit` bytes (the router already stopped reading there).
    /// A body under a content coding (`Content-Encoding: gzip`) is refused with a message that names it: read as
    /// it is, it would be refused as invalid JSON or form, which sends its sender looking in the wrong place.
    func bodyData() throws(BodyReadFailure) -> Data {
        if let coding = headers[.contentEncoding], coding.lowercased() != "identity" {
            throw .encoded(coding)
        }
        return switch body {
        case .success(let buffer): Data(buffer.readableBytesView)
        case .failure(let failure): throw failure
        }
    }
}

/// A whole answer: the relay's bodies are small JSON documents, never streamed.
struct RelayResponse: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields = [:]
    var body = ByteBuffer()

    /// A plain-text answer, for endpoints read by people and scrapers.
    static func text(_ status: HTTPResponse.Status, _ text: String, contentType: String = "text/plain; charset=utf-8") -> Self {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return .init(status: status, headers: headers, body: ByteBuffer(string: text))
    }

    /// For a request whose route failed in a way it has no answer for (`RelayRequest.internalError`).
    static let internalError = text(.internalServerError, "the relay could not answer this request; its log says why\n")

    /// A JSON answer already written out (by `JSONText`, on the hot paths, rather than by an encoder).
    static func json(_ status: HTTPResponse.Status, _ document: String) -> Self {
        .text(status, document, contentType: "application/json")
    }
}

/// Why a request body could not be read; each API words it in its own error format.
enum BodyReadFailure: Error, Equatable {
    /// Larger than the endpoint reads (by its Content-Length, or by what arrived).
    case tooLarge(limit: Int)
    /// Ended before its Content-Length, or stopped arriving before the request deadline.
    case incomplete(reason: String)
    /// Under a content coding the relay does not undo.
    case encoded(String)

    var message: String {
        switch self {
        case .encoded(let coding):
            "The request body is sent with Content-Encoding: \(coding), which this relay does not accept; send it uncompressed (without Content-Encoding), as FCM's client libraries do."
        case .tooLarge(let limit): "Request payload size exceeds the limit: \(limit) bytes."
        case .incomplete(let reason): "The request body is incomplete: \(reason) before all of it arrived."
        }
    }
}
