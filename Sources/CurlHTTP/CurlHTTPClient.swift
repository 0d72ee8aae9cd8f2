import CCurl

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
            try await withCheckedThrowingContinuation { loop.submit(transfer, $0) }
        } onCancel: {
            loop.cancel(transfer)
        }
    }

    /// Stops the worker thread; requests in flight and later ones fail with `HTTPClientError.transport`.
    public func shutdown() {
        loop.shutdown()
    }
}
