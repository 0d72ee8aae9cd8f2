import CCurl
import Foundation

/// The project's one HTTP client: libcurl's multi interface on a dedicated thread, async on top.
public final class CurlHTTPClient: Sendable {
    public static let shared = CurlHTTPClient()

    private let loop: MultiLoop

    public init() {
        let code = ccurl_global_init()
        precondition(code == CURLE_OK, "curl_global_init failed: \(String(cString: curl_easy_strerror(code)))")
        loop = MultiLoop()
    }

    deinit {
        loop.shutdown()
    }

    /// Returns the response whatever its HTTP status. Throws `HTTPClientError`, or
    /// `CancellationError` when the task is cancelled (the transfer is aborted at once).
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let transfer = try Transfer(request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { loop.submit(transfer, .whole($0)) }
        } onCancel: {
            loop.cancel(transfer)
        }
    }

    /// Returns once the status and headers are in; the body then arrives chunk by chunk (event streams, NDJSON).
    /// `maxResponseBytes` does not apply. Ending the body's iteration (or cancelling its task) aborts the transfer.
    public func stream(_ request: HTTPRequest) async throws -> HTTPStreamResponse {
        let transfer = try Transfer(request)
        let (stream, body) = AsyncThrowingStream<Data, any Error>.makeStream()
        body.onTermination = { [loop] _ in loop.cancel(transfer) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { head in
                loop.submit(transfer, .stream(StreamSink(head: head, stream: stream, body: body)))
            }
        } onCancel: {
            loop.cancel(transfer)
        }
    }

    /// Stops the worker thread; requests in flight and later ones fail with `HTTPClientError.transport`.
    public func shutdown() {
        loop.shutdown()
    }
}
