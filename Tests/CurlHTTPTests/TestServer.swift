import Foundation
import HTTPTestSupport
import Hummingbird

/// The test server's routes, served in-process.
/// (Kept apart from the client tests: Hummingbird exports its own HTTPRequest/HTTPResponse.)
enum TestServer {
    /// Runs `body` with the server listening on 127.0.0.1 and passes it the port.
    static func withTCP<T: Sendable>(_ body: (Int) async throws -> T) async throws -> T {
        try await with(address: .hostname("127.0.0.1", port: 0), body)
    }

    static func withUnixSocket<T: Sendable>(path: String, _ body: () async throws -> T) async throws -> T {
        try await with(address: .unixDomainSocket(path: path)) { _ in try await body() }
    }

    private static func with<T: Sendable>(address: BindAddress, _ body: (Int) async throws -> T) async throws -> T {
        try await InProcessServer.with(router(), address: address, label: "CurlHTTPTests.server", body)
    }

    private static func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/hello") { _, _ in
            Response(status: .ok, headers: [.init("X-Greeting")!: "yes"],
                     body: .init(byteBuffer: ByteBuffer(string: "hello")))
        }
        router.post("/echo") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            return Response(
                status: .ok,
                headers: [.init("X-Echo-Content-Type")!: request.headers[.contentType] ?? "none",
                          .init("X-Echo-Method")!: request.method.rawValue],
                body: .init(byteBuffer: body))
        }
        router.delete("/item") { _, _ in HTTPResponse.Status.noContent }
        router.get("/slow") { request, _ in
            let ms = request.uri.queryParameters.get("ms", as: Int.self) ?? 0
            try await Task.sleep(for: .milliseconds(ms))
            return "done"
        }
        // `chunked=1` streams without Content-Length, so the client only learns the size while reading.
        router.get("/big") { request, _ in
            let bytes = request.uri.queryParameters.get("bytes", as: Int.self) ?? 0
            let payload = ByteBuffer(repeating: UInt8(ascii: "x"), count: bytes)
            guard request.uri.queryParameters.get("chunked") == "1" else {
                return Response(status: .ok, body: .init(byteBuffer: payload))
            }
            return Response(status: .ok, body: ResponseBody { writer in
                var rest = payload
                while let chunk = rest.readSlice(length: min(4096, rest.readableBytes)), chunk.readableBytes > 0 {
                    try await writer.write(chunk)
                }
                try await writer.finish(nil)
            })
        }
        // One line every `ms` milliseconds, `count` lines, then the end; `count=0` streams until the client leaves.
        router.get("/lines") { request, _ in
            let ms = request.uri.queryParameters.get("ms", as: Int.self) ?? 10
            let count = request.uri.queryParameters.get("count", as: Int.self) ?? 0
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: ResponseBody { writer in
                var line = 0
                while count == 0 || line < count {
                    line += 1
                    try await writer.write(ByteBuffer(string: "line \(line)\n"))
                    try await Task.sleep(for: .milliseconds(ms))
                }
                try await writer.finish(nil)
            })
        }
        return router
    }
}
