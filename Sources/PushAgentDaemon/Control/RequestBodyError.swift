import ConnectionGuards
import ControlWire
import Hummingbird
import NIOCore
import NIOHTTP1

/// A request body the control API cannot take: larger than it reads (413), or ending before its Content-Length
/// said (400). Both are the caller's fault, so they are `invalid_argument` and name the limit or the length, rather
/// than the `503 internal error` that NIO's own errors would become.
struct RequestBodyError: Error {
    /// Control requests are small JSON documents; this bounds what one connection can make the daemon buffer.
    static let limit = 64 * 1024

    var status: HTTPResponse.Status
    var controlError: ControlError

    static func tooLarge(declared: Int?, limit: Int) -> Self {
        let size = declared.map { " (Content-Length: \($0))" } ?? ""
        return Self(status: .contentTooLarge, controlError: ControlError(
            .invalidArgument, "the request body is larger than \(limit) bytes\(size), the most the control API reads"))
    }

    static func incomplete(declared: Int?, reason: String) -> Self {
        let expected = declared.map { " of the \($0) bytes its Content-Length announced" } ?? ""
        return Self(status: .badRequest, controlError: ControlError(
            .invalidArgument, "the request body is incomplete: \(reason) before the rest\(expected) arrived"))
    }
}

extension Request {
    /// The whole body, refused early when its Content-Length already says it is too large. A route taking more than
    /// the usual `RequestBodyError.limit` (a restore carries a backup file) passes its own.
    func collectBody(limit: Int = RequestBodyError.limit) async throws -> ByteBuffer {
        let declared = headers[.contentLength].flatMap { Int($0) }
        if let declared, declared > limit { throw RequestBodyError.tooLarge(declared: declared, limit: limit) }
        do {
            return try await body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw RequestBodyError.tooLarge(declared: declared, limit: limit)
        } catch let error as RequestDeadlineExceeded {
            throw RequestBodyError.incomplete(declared: declared, reason: "\(error.timeout.secondsText) s passed")
        } catch HTTPParserError.invalidEOFState {
            throw RequestBodyError.incomplete(declared: declared, reason: "the client closed its side")
        }
    }
}
