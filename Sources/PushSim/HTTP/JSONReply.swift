import Foundation
import Hummingbird

/// JSON responses and request bodies for the sim's endpoints.
enum JSONReply {
    static func make(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        let data = (try? SimAdminAPI.encoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func error(_ status: Int, code: String, _ message: String) -> Response {
        make(.init(code: status), SimAdminAPI.ErrorResponse(error: .init(code: code, message: message)))
    }

    /// Reads a JSON body; an empty body decodes as `empty` when given (every admin field has a default).
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, empty: T? = nil) async throws(BadBody) -> T {
        var request = request
        let data: Data
        do {
            data = Data(buffer: try await request.collectBody(upTo: 64 * 1024))
        } catch {
            throw BadBody(message: "cannot read the request body: \(error)")
        }
        if data.isEmpty, let empty { return empty }
        do {
            return try SimAdminAPI.decoder.decode(type, from: data)
        } catch {
            throw BadBody(message: "the request body is not the expected JSON: \(error)")
        }
    }

    struct BadBody: Error {
        var message: String
    }
}
