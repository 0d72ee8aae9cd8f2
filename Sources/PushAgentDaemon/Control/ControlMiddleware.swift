import ControlWire
import Foundation
import Hummingbird
import Logging
import PushAgentCore

/// Refuses browsers (any Origin/Referer: no web page may drive the authenticator) and renders every error as
/// the control API's `{"error": {"code", "message"}}`.
struct ControlMiddleware: RouterMiddleware {
    typealias Context = PeerContext
    let logger: Logger

    func handle(_ request: Request, context: PeerContext,
                next: (Request, PeerContext) async throws -> Response) async throws -> Response {
        if request.headers[.origin] != nil || request.headers[.referer] != nil {
            return JSONResponse.error(ControlError(.forbidden, "requests from web pages (with Origin or Referer) are refused"))
        }
        do {
            return try await next(request, context)
        } catch let error as RequestBodyError {
            return JSONResponse.error(error.controlError, status: error.status)
        } catch {
            let controlError = ControlFailure.controlError(from: error)
            if controlError.code == .unavailable {
                logger.error("control request \(request.method) \(request.uri.path) failed: \(error)")
            }
            return JSONResponse.error(controlError)
        }
    }
}

enum JSONResponse {
    static func ok<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(bytes: try ControlJSON.encoder().encode(value))))
    }

    /// `status` overrides the code's usual one (413 for an `invalid_argument` body that is too large).
    static func error(_ error: ControlError, status: HTTPResponse.Status? = nil) -> Response {
        Response(status: status ?? ControlFailure.status(of: error.code), headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: errorBody(error)))
    }

    static func errorBody(_ error: ControlError) -> ByteBuffer {
        ByteBuffer(bytes: (try? ControlJSON.encoder().encode(ErrorBody(error))) ?? Data("{}".utf8))
    }
}

extension Request {
    /// Decodes a JSON body of at most `limit` bytes; an empty body decodes as `{}`.
    func decodeJSON<T: Decodable>(_ type: T.Type, limit: Int = RequestBodyError.limit) async throws -> T {
        let buffer = try await collectBody(limit: limit)
        let data = buffer.readableBytes == 0 ? Data("{}".utf8) : Data(buffer.readableBytesView)
        do { return try ControlJSON.decoder().decode(T.self, from: data) }
        catch { throw ControlError(.invalidArgument, "the request body is not valid: \(DecodingFailure.summary(error))") }
    }

    /// A long-poll's `?wait=SECONDS`, 0 to `maximum`; 0 when absent.
    func waitSeconds(atMost maximum: Int) throws -> Int {
        guard let raw = uri.queryParameters.get("wait") else { return 0 }
        guard let seconds = Int(raw), (0...maximum).contains(seconds) else {
            throw ControlError(.invalidArgument, "wait must be 0 to \(maximum) seconds, not '\(raw)'")
        }
        return seconds
    }
}
