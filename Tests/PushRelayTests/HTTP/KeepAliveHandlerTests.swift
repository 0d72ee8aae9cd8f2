import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing
@testable import PushRelay

/// `KeepAliveHandler` marks the requests whose client expects the connection closed after the answer, while their
/// version is still known (RFC 9112 §9.3): HTTP/1.0 unless it asked to keep the connection.
@Suite("KeepAliveHandler")
struct KeepAliveHandlerTests {
    /// The head as it leaves the handler.
    private func passed(_ head: HTTPRequestHead) throws -> HTTPServerRequestPart? {
        let channel = EmbeddedChannel(handler: KeepAliveHandler())
        defer { _ = try? channel.finish() }
        try channel.writeInbound(HTTPServerRequestPart.head(head))
        return try channel.readInbound(as: HTTPServerRequestPart.self)
    }

    @Test func anHTTP10RequestIsMarkedConnectionClose() throws {
        let head = HTTPRequestHead(version: .http1_0, method: .GET, uri: "/healthz", headers: ["Host": "relay"])
        var expected = head
        expected.headers.add(name: "connection", value: "close")
        #expect(try passed(head) == .head(expected))
    }

    @Test func anHTTP10RequestThatAsksForKeepAliveIsLeftAsItIs() throws {
        let head = HTTPRequestHead(version: .http1_0, method: .GET, uri: "/healthz", headers: ["Connection": "keep-alive"])
        #expect(try passed(head) == .head(head))
    }

    /// HTTP/1.1 keeps its connection by default: nothing is added.
    @Test func anHTTP11RequestIsLeftAsItIs() throws {
        let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/v1/poll", headers: ["Host": "relay"])
        #expect(try passed(head) == .head(head))
    }

    /// An HTTP/1.0 request asking for close in other words ends with one Connection field, not two.
    @Test func anExistingConnectionFieldIsReplacedNotDoubled() throws {
        let head = HTTPRequestHead(version: .http1_0, method: .GET, uri: "/", headers: ["Connection": "Close"])
        guard case .head(let marked) = try passed(head) else {
            Issue.record("the head did not pass")
            return
        }
        #expect(marked.headers["connection"] == ["close"])
    }

    @Test func bodiesAndEndsPassUntouched() throws {
        let channel = EmbeddedChannel(handler: KeepAliveHandler())
        defer { _ = try? channel.finish() }
        let head = HTTPRequestHead(version: .http1_0, method: .POST, uri: "/items", headers: ["Content-Length": "3"])
        try channel.writeInbound(HTTPServerRequestPart.head(head))
        try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "abc")))
        try channel.writeInbound(HTTPServerRequestPart.end(["X-Trailer": "t"]))
        _ = try channel.readInbound(as: HTTPServerRequestPart.self)
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == .body(ByteBuffer(string: "abc")))
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == .end(["X-Trailer": "t"]))
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == nil)
    }

    /// What `RelayHTTPHandler` reads is the version-less request of the HTTP types codec: the mark must survive it.
    @Test func theMarkReachesTheRequestRelayHTTPHandlerReads() throws {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        try channel.pipeline.syncOperations.addHandlers([KeepAliveHandler(), HTTP1ToHTTPServerCodec(secure: false)])
        try channel.writeInbound(HTTPServerRequestPart.head(
            HTTPRequestHead(version: .http1_0, method: .GET, uri: "/healthz", headers: [:])))
        guard case .head(let request) = try channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("no request head reached the end of the pipeline")
            return
        }
        #expect(request.headerFields[.connection] == "close")
        #expect(request.path == "/healthz")
    }
}
