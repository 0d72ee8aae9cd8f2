import CCurl
import Foundation

extension HTTPClientError {
    /// `osErrno` is CURLINFO_OS_ERRNO: curl's own text for a failed connect is generic
    /// ("Couldn't connect to server"), the errno says whether it was refused, missing or forbidden.
    init(curlCode code: CURLcode, curlMessage: String, osErrno: Int, target: String) {
        let detail = "\(target): \(curlMessage)"
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            self = .invalidURL(detail)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self = .couldNotResolveHost(detail)
        case CURLE_COULDNT_CONNECT:
            let reason = osErrno == 0 ? "" : " (\(String(cString: strerror(Int32(osErrno)))))"
            self = .couldNotConnect(detail + reason)
        case CURLE_OPERATION_TIMEDOUT:
            self = .timedOut(detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED, CURLE_SSL_CLIENTCERT:
            self = .tls(detail)
        default:
            self = .transport(code: Int(code.rawValue), message: detail)
        }
    }

    /// Given to requests still in flight, or sent after, when the client's worker thread stops.
    static let clientShutDown = HTTPClientError.transport(
        code: Int(CURLE_ABORTED_BY_CALLBACK.rawValue), message: "the HTTP client was shut down")
}
