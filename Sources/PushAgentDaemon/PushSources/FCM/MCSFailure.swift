import NIOCore
import NIOPosix
import NIOSSL
import PushAgentCore

/// Why a connection to MCS failed, said to a user: what happened, to which host and port, and what to do. NIO's and
/// BoringSSL's own descriptions name build paths and library internals (`handshakeFailed(…CERTIFICATE_VERIFY_FAILED
/// at /…/handshake.cc:320)`), and leave out the peer.
struct MCSFailure: Error, CustomStringConvertible {
    let host: String
    let port: Int
    let underlying: any Error

    var description: String {
        let peer = "\(host):\(port)"
        let trust = "if a proxy or firewall inspects TLS, add its CA to the system's trust store (update-ca-certificates) "
            + "or name it in fcm_ca_file"
        switch underlying {
        case NIOSSLError.handshakeFailed(let cause) where "\(cause)".contains("CERTIFICATE_VERIFY_FAILED"):
            return "the TLS certificate of \(peer) is not signed by a CA this machine trusts: \(trust)"
        case NIOSSLError.handshakeFailed(let cause):
            return "the TLS handshake with \(peer) failed (\(Self.reasons(cause))): is it MCS? \(trust)"
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return "the TLS certificate of \(peer) is not for \(host) (it names another host): something other than "
                + "Google answers there (a proxy that inspects TLS? a wrong fcm_mcs_host?); \(trust) if it is meant to"
        case NIOSSLError.uncleanShutdown, NIOSSLError.handshakeFailed(.syscallError):
            return "\(peer) cut the connection without ending TLS properly (a proxy, firewall or NAT dropped it, or "
                + "the server went away); reconnecting"
        case let error as NIOConnectionError:
            let causes = error.connectionErrors.map { "\($0.error)" } + [error.dnsAError, error.dnsAAAAError].compactMap {
                $0.map { "name lookup: \($0)" }
            }
            return "cannot connect to \(peer) (\(causes.isEmpty ? "no address" : causes.joined(separator: "; "))): "
                + "is the network up, and is the port open outbound (5228, or the fallback 443)?"
        case ChannelError.connectTimeout(let after):
            return "no answer from \(peer) within \(after.nanoseconds / 1_000_000_000) s: the port may be blocked "
                + "outbound (MCS needs 5228, or 443 as the fallback)"
        case let error as MCSError:
            return "\(peer) sent what is not MCS (\(error)): is fcm_mcs_host right, or does a proxy answer in its place?"
        default:
            return "\(peer): \(underlying)"
        }
    }

    /// BoringSSL's reasons alone (`WRONG_VERSION_NUMBER`), without its error numbers and the file it was raised in.
    private static func reasons(_ error: BoringSSLError) -> String {
        let stack: NIOBoringSSLErrorStack = switch error {
        case .sslError(let stack), .unknownError(let stack), .invalidSNIName(let stack), .failedToSetALPN(let stack): stack
        default: []
        }
        // Each reads "[Error: N error:X:SSL routines:OPENSSL_internal:REASON at /path/file.cc:LINE]".
        let names = stack.compactMap { entry -> String? in
            let text = "\(entry)"
            guard let marker = text.range(of: "OPENSSL_internal:") else { return nil }
            return text[marker.upperBound...].prefix { !$0.isWhitespace && $0 != "]" }.description
        }
        return names.isEmpty ? "\(error)" : names.joined(separator: ", ")
    }
}
