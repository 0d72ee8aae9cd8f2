import Foundation
import Hummingbird
import NIOCore
import PushAgentStore

/// The control socket's request context: Hummingbird's basic context plus the request's connection, so each request
/// can ask who is calling.
struct PeerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }


    /// The caller from SO_PEERCRED; the kernel vouches for it, so it cannot be forged by the client.
    func peer() async throws -> Peer {
        guard let provider = channel as? any SocketOptionProvider else {
            throw ServiceError(.forbidden, "cannot identify the caller on this connection")
        }
        let credentials: PeerCredentials = try await provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)).get()
        return Peer(uid: credentials.uid, pid: credentials.pid, command: Self.command(of: credentials.pid))
    }

    private static func command(of pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// `struct ucred` (Glibc exposes it only under _GNU_SOURCE), same layout.
struct PeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
