import Glibc
import NIOCore

/// A listener that could not be opened, said with its address and what to do. NIO says
/// `bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)`: neither where nor what to do.
public struct ListenError: Error, CustomStringConvertible {
    public let description: String

    /// - Parameters:
    ///   - program: what may hold the address already ("pushrelay").
    ///   - change: how to give this one another address ("--listen HOST:PORT or `listen` in pushrelay.toml").
    public init(host: String, port: Int, program: String, change: String, _ error: any Error) {
        let change = "give this one another address with \(change)"
        let reason = switch (error as? IOError)?.errnoCode {
        case EADDRINUSE:
            "the address is in use, by another \(program) or another program (`ss -ltnp 'sport = :\(port)'` shows which): stop it, or \(change)"
        case EACCES:
            "permission denied: a port below 1024 needs root or CAP_NET_BIND_SERVICE (AmbientCapabilities= under systemd); or \(change)"
        case EADDRNOTAVAIL:
            "no network interface of this machine has the address \(host): \(change)"
        case let code?:
            "\(String(cString: strerror(code))): \(change)"
        case nil:
            "\(error)"
        }
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        description = "cannot listen on \(address): \(reason)"
    }

    /// Whether `error` is a socket's failure to bind (NIO's IOError from `bind`), which this error explains.
    public static func isBindFailure(_ error: any Error) -> Bool {
        guard let error = error as? IOError else { return false }
        return "\(error)".hasPrefix("bind(")
    }
}
