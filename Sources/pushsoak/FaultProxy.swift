import Foundation
import Synchronization

/// What the proxy does to one request between pushagentd and pushrelay.
enum Fault: String, CaseIterable, Sendable {
    /// Reset the connection before the relay sees the request.
    case resetBeforeForwarding = "reset before forwarding"
    /// Answer 502 without asking the relay.
    case badGateway = "502"
    /// Answer 503 without asking the relay.
    case unavailable = "503"
    /// Hold the relay's answer for a while before passing it on.
    case delay
    /// Pass on only part of the relay's answer (mid-body when it has one), then close.
    case truncate = "truncated response"
    /// Let the relay answer (so it has taken the acknowledgement), then reset instead of passing the answer on.
    case resetAfterForwarding = "reset after the relay answered"
}

/// An HTTP/1.1 proxy on loopback that injects `Fault`s into a share of the requests passing through it.
///
/// One request per client connection (both sides are told `Connection: close`), so a fault hits exactly one
/// request and the client's connection reuse cannot smear it across others. Plain sockets and one thread per
/// connection: the daemon keeps at most a few connections open, and blocking code is the easiest to make cut a
/// response at an exact byte.
final class FaultProxy: Sendable {
    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let faultRate = Mutex(0.0)
    private let injected = Mutex<[Fault: Int]>([:])
    private let requests = Atomic<Int>(0)
    private let relayDownReplies = Atomic<Int>(0)
    private let random: SoakRandom

    /// Listens on an ephemeral loopback port and forwards to `127.0.0.1:upstreamPort`.
    init(upstreamPort: Int, random: SoakRandom) throws {
        self.upstreamPort = upstreamPort
        self.random = random
        let (listener, port) = try LoopbackSocket.listen()
        self.listener = listener
        self.port = port
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// The share of requests (0…1) that get a fault from now on.
    func setFaultRate(_ rate: Double) { faultRate.withLock { $0 = rate } }

    var faultsInjected: [Fault: Int] { injected.withLock { $0 } }
    var requestsSeen: Int { requests.load(ordering: .relaxed) }
    /// Requests answered 502 because the relay was down (killed), not by choice.
    var relayDownCount: Int { relayDownReplies.load(ordering: .relaxed) }

    /// Stops accepting; connections in flight finish on their own.
    func close() { shutdown(listener, Int32(SHUT_RDWR)) }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            Thread.detachNewThread { [self] in
                serve(client)
                Glibc.close(client)
            }
        }
    }

    private func serve(_ client: Int32) {
        LoopbackSocket.setTimeout(client, seconds: 120)
        guard let request = HTTPMessage.read(from: client) else { return }
        requests.add(1, ordering: .relaxed)
        let fault = drawFault()
        if let fault { injected.withLock { $0[fault, default: 0] += 1 } }
        switch fault {
        case .resetBeforeForwarding?:
            LoopbackSocket.reset(client)
            return
        case .badGateway?:
            LoopbackSocket.sendAll(client, HTTPMessage.errorResponse(status: "502 Bad Gateway", code: "injected_502"))
            return
        case .unavailable?:
            LoopbackSocket.sendAll(client, HTTPMessage.errorResponse(status: "503 Service Unavailable", code: "injected_503"))
            return
        case .delay?, .truncate?, .resetAfterForwarding?, nil:
            break
        }
        guard let response = forward(request) else {
            // The relay is down (killed): what a reverse proxy in front of it would say.
            relayDownReplies.add(1, ordering: .relaxed)
            LoopbackSocket.sendAll(client, HTTPMessage.errorResponse(status: "502 Bad Gateway", code: "relay_unreachable"))
            return
        }
        switch fault {
        case .delay?:
            Thread.sleep(forTimeInterval: random.uniform(0.2...3.0))
            LoopbackSocket.sendAll(client, response.bytes)
        case .truncate?:
            LoopbackSocket.sendAll(client, response.bytes.prefix(response.cutPoint(random)))
        case .resetAfterForwarding?:
            LoopbackSocket.reset(client)
        default:
            LoopbackSocket.sendAll(client, response.bytes)
        }
    }

    private func drawFault() -> Fault? {
        let rate = faultRate.withLock { $0 }
        guard rate > 0, random.uniform(0.0..<1.0) < rate else { return nil }
        return random.element(of: Fault.allCases)
    }

    /// Sends the request to the relay and reads its whole answer; nil when the relay cannot be reached or hangs up.
    private func forward(_ request: HTTPMessage) -> HTTPMessage? {
        guard let upstream = LoopbackSocket.connect(port: upstreamPort) else { return nil }
        defer { Glibc.close(upstream) }
        LoopbackSocket.setTimeout(upstream, seconds: 120)
        guard LoopbackSocket.sendAll(upstream, request.withConnectionClose().bytes) else { return nil }
        return HTTPMessage.read(from: upstream)?.withConnectionClose()
    }
}
