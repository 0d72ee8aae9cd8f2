import CCurl
import Foundation

/// One request's easy handle and the response libcurl writes into it.
/// Built on the caller's task, then handed to `MultiLoop`; from then on only the loop thread
/// touches it (the hand-over goes through the loop's mutex), hence `@unchecked Sendable`.
final class Transfer: @unchecked Sendable {
    enum Phase {
        case built
        /// The cancel command overtook the add command (the task was cancelled before it was sent).
        case cancelledBeforeStart
        case running(Delivery)
        case finished
    }

    let handle: UnsafeMutableRawPointer
    var phase = Phase.built
    private let target: String
    private let maxResponseBytes: Int
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var receivedHeaders: [(name: String, value: String)] = []
    private var receivedBody = Data()
    private var exceededLimit = false

    init(_ request: HTTPRequest) throws(HTTPClientError) {
        guard let handle = curl_easy_init() else {
            throw .transport(code: Int(CURLE_FAILED_INIT.rawValue), message: "\(request.target): curl_easy_init failed")
        }
        self.handle = handle
        target = request.target
        maxResponseBytes = request.maxResponseBytes
        errorBuffer.initialize(to: 0)
        try configure(for: request)
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    private func configure(for request: HTTPRequest) throws(HTTPClientError) {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        // The loop thread must never get a SIGALRM from curl's resolver timeouts.
        try check(ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        try check(ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        try check(ccurl_setopt_string(handle, CURLOPT_URL, request.url))
        try check(ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        try check(ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, request.timeout.curlMilliseconds))
        try check(ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeout.curlMilliseconds))
        // Long polls sit idle for minutes; keepalive lets a dead NAT mapping surface as an error.
        try check(ccurl_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1))
        // Lets curl refuse at once when Content-Length already announces too much.
        try check(ccurl_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxResponseBytes)))
        try check(ccurl_setopt_long(handle, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1))
        if !request.verifyTLS {
            try check(ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0))
            try check(ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0))
        }
        if let path = request.unixSocketPath {
            try check(ccurl_setopt_string(handle, CURLOPT_UNIX_SOCKET_PATH, path))
        }
        // Servers may answer 411 to a POST without Content-Length, so "no body" is sent as an empty one.
        let body = request.body ?? (["POST", "PUT", "PATCH"].contains(request.method) ? Data() : nil)
        try configureMethod(request.method, body: body)
        try configureHeaders(request.headers, hasBody: body != nil)
        try check(ccurl_setopt_write_callback(handle, { data, size, count, userdata in
            Unmanaged<Transfer>.fromOpaque(userdata!).takeUnretainedValue()
                .receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
        }, userdata))
        try check(ccurl_setopt_header_callback(handle, { data, size, count, userdata in
            Unmanaged<Transfer>.fromOpaque(userdata!).takeUnretainedValue()
                .receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
        }, userdata))
    }

    private func configureMethod(_ method: String, body: Data?) throws(HTTPClientError) {
        if let body {
            try check(body.withUnsafeBytes { ccurl_setopt_post_body(handle, $0.baseAddress, curl_off_t($0.count)) })
        }
        switch method {
        case "GET" where body == nil, "POST":
            break
        case "HEAD":
            try check(ccurl_setopt_long(handle, CURLOPT_NOBODY, 1))
        default:
            try check(ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method))
        }
    }

    private func configureHeaders(_ headers: [(name: String, value: String)], hasBody: Bool) throws(HTTPClientError) {
        var lines = headers.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
        if let bad = lines.first(where: { $0.contains(where: \.isNewline) }) {
            throw .transport(code: Int(CURLE_BAD_FUNCTION_ARGUMENT.rawValue),
                             message: "\(target): header line contains a line break: \(bad.debugDescription)")
        }
        // Without these, curl labels any body as a form and waits for 100-continue on large ones.
        if hasBody && !headers.contains(where: { $0.name.caseInsensitiveCompare("Content-Type") == .orderedSame }) {
            lines.append("Content-Type:")
        }
        lines.append("Expect:")
        for line in lines {
            guard let list = curl_slist_append(headerList, line) else {
                throw .transport(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "\(target): curl_slist_append failed")
            }
            headerList = list
        }
        try check(ccurl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList))
    }

    private func check(_ code: CURLcode) throws(HTTPClientError) {
        guard code == CURLE_OK else {
            throw .transport(code: Int(code.rawValue),
                             message: "\(target): could not configure the request: \(String(cString: curl_easy_strerror(code)))")
        }
    }

    private func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Int {
        if case .running(.stream(let sink)) = phase {
            sink.deliverHead(status: responseStatus, headers: receivedHeaders)
            sink.body.yield(Data(chunk))
            return chunk.count
        }
        guard receivedBody.count + chunk.count <= maxResponseBytes else {
            exceededLimit = true
            return 0  // makes curl abort the transfer with CURLE_WRITE_ERROR
        }
        receivedBody.append(chunk.assumingMemoryBound(to: UInt8.self))
        return chunk.count
    }

    /// Reads the line as bytes: Foundation's trimming, bridged through NSString, took 2–7 % of each client's CPU.
    private func receiveHeader(_ chunk: UnsafeRawBufferPointer) -> Int {
        let line = chunk.trimming { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }
        if line.starts(with: "HTTP/".utf8) {
            // A new status line: what came before belonged to an interim (1xx) response.
            receivedHeaders.removeAll()
        } else if line.isEmpty, case .running(.stream(let sink)) = phase, responseStatus >= 200 {
            // The end of the final response's headers: a stream's reader can start before any body arrives.
            sink.deliverHead(status: responseStatus, headers: receivedHeaders)
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            let value = line[(colon + 1)...].trimming { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            receivedHeaders.append((name: String(decoding: line[..<colon], as: UTF8.self),
                                    value: String(decoding: value, as: UTF8.self)))
        }
        return chunk.count
    }

    /// Called on the loop thread once curl reports the transfer done.
    func outcome(_ code: CURLcode) -> Result<HTTPResponse, HTTPClientError> {
        if exceededLimit || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(.responseTooLarge(limit: maxResponseBytes))
        }
        guard code == CURLE_OK else {
            var osErrno = 0
            _ = ccurl_getinfo_long(handle, CURLINFO_OS_ERRNO, &osErrno)
            let message = errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
            return .failure(HTTPClientError(curlCode: code, curlMessage: message, osErrno: osErrno, target: target))
        }
        return .success(HTTPResponse(status: responseStatus, headers: receivedHeaders, body: receivedBody))
    }

    private var responseStatus: Int {
        var status = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return status
    }
}

/// Where a finished (or streaming) transfer's response goes.
enum Delivery {
    /// The whole response at the end.
    case whole(CheckedContinuation<HTTPResponse, any Error>)
    /// The status and headers as soon as they are in, then the body chunk by chunk.
    case stream(StreamSink)

    func complete(_ result: Result<HTTPResponse, any Error>) {
        switch self {
        case .whole(let continuation): continuation.resume(with: result)
        case .stream(let sink): sink.complete(result)
        }
    }
}

/// A streamed response's two halves; touched only on the loop thread once the transfer runs.
final class StreamSink: @unchecked Sendable {
    let body: AsyncThrowingStream<Data, any Error>.Continuation
    private var head: CheckedContinuation<HTTPStreamResponse, any Error>?
    /// Handed to the reader with the head, and not kept: the reader dropping it must be able to end the transfer.
    private var stream: AsyncThrowingStream<Data, any Error>?

    init(head: CheckedContinuation<HTTPStreamResponse, any Error>,
         stream: AsyncThrowingStream<Data, any Error>, body: AsyncThrowingStream<Data, any Error>.Continuation) {
        self.head = head
        self.stream = stream
        self.body = body
    }

    func deliverHead(status: Int, headers: [(name: String, value: String)]) {
        guard let head, let stream else { return }
        head.resume(returning: HTTPStreamResponse(status: status, headers: headers, body: stream))
        self.head = nil
        self.stream = nil
    }

    func complete(_ result: Result<HTTPResponse, any Error>) {
        switch result {
        case .success(let response):
            deliverHead(status: response.status, headers: response.headers)
            body.finish()
        case .failure(let error):
            if let head {
                head.resume(throwing: error)
                self.head = nil
                stream = nil
            }
            body.finish(throwing: error)
        }
    }
}

extension BidirectionalCollection where Element == UInt8 {
    /// Without the bytes at either end for which `isTrimmed` holds.
    fileprivate func trimming(_ isTrimmed: (UInt8) -> Bool) -> SubSequence {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}

extension Duration {
    /// curl reads 0 as "no limit"; a zero Duration should mean "no time at all", not "forever".
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? Int.max : max(1, Int(milliseconds + attoseconds / 1_000_000_000_000_000))
    }
}
