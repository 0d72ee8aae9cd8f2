import ConnectionGuards
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PushAgentCore

/// The emulator's MCS endpoint (Google's mtalk.google.com:5228): TLS with the certificate given, then MCS version
/// 41. A connection logs in as a checked-in device, gets its unacknowledged messages, and stays: pings answered,
/// selective acks applied, server pings at the interval the login asked for. Anything it cannot read ends it.
struct MCSServer: Sendable {
    let emulator: FCMEmulator
    let tls: NIOSSLContext
    let logger: Logger

    init(emulator: FCMEmulator, certificateFile: String, privateKeyFile: String, logger: Logger) throws {
        self.emulator = emulator
        let chain = try NIOSSLCertificate.fromPEMFile(certificateFile).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: privateKeyFile, format: .pem)
        tls = try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
        self.logger = logger
    }

    /// Binds, reports the bound address, and serves until cancelled.
    func run(host: String, port: Int, onBound: @Sendable (SimAddress) -> Void) async throws {
        let tls = self.tls
        let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch where ListenError.isBindFailure(error) {
            throw ListenError(host: host, port: port, program: "pushsim", change: "--mcs-listen HOST:PORT", error)
        }
        onBound(SimAddress(host: host, port: server.channel.localAddress?.port ?? port))
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { connections in
                for try await connection in connections {
                    group.addTask { await serve(connection) }
                }
            }
        }
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        let outbox = MCSSessionOutbox()
        var device: UInt64?
        do {
            try await connection.executeThenClose { inbound, outbound in
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask {
                        var first = true
                        for await outgoing in outbox.stream {
                            switch outgoing {
                            case .stanza(let message):
                                try await outbound.write(ByteBuffer(bytes: try MCSFraming.frame(message, withVersion: first)))
                            case .raw(let bytes):
                                try await outbound.write(ByteBuffer(bytes: bytes))
                            }
                            first = false
                        }
                    }
                    var decoder = MCSFrameDecoder()
                    var silent = false
                    reading: for try await chunk in inbound {
                        decoder.append(chunk.readableBytesView)
                        while let message = try decoder.next() {
                            if silent { continue }
                            guard try await handle(message, device: &device, silent: &silent, outbox: outbox) else {
                                break reading
                            }
                        }
                    }
                    // What was queued (a Close, say) is written before the connection closes.
                    outbox.finish()
                    try await tasks.waitForAll()
                }
            }
        } catch {
            logger.info("mcs connection ended: \(error)")
        }
        outbox.finish()
        if let device { await emulator.loggedOut(androidID: device, session: outbox) }
    }

    /// False to end the connection.
    private func handle(_ message: MCSMessage, device: inout UInt64?, silent: inout Bool, outbox: MCSSessionOutbox)
        async throws -> Bool {
        switch message {
        case .loginRequest(let login):
            guard device == nil, let id = UInt64(login.user), let token = UInt64(login.authToken),
                  try await emulator.logIn(androidID: id, securityToken: token, received: login.receivedPersistentID,
                                       session: outbox) else {
                // As Google answers a device it does not know (a registration it forgot): an error, then the end.
                var refusal = McsProto_LoginResponse()
                refusal.id = login.id
                refusal.error.code = 401
                refusal.error.message = "unknown device or wrong security token"
                outbox.send(.loginResponse(refusal))
                outbox.send(.close(McsProto_Close()))
                return false
            }
            device = id
            var response = McsProto_LoginResponse()
            response.id = "chrome-63.0.3234.0"
            response.jid = "\(id)@mcs.android.com"
            response.serverTimestamp = Int64(Date().timeIntervalSince1970 * 1000)
            guard let misbehaviour = await emulator.takeMisbehaviour() else {
                outbox.send(.loginResponse(response))
                startPings(every: login.heartbeatStat.intervalMs, to: outbox)
                return true
            }
            if let code = misbehaviour.loginRefusal {
                var refusal = McsProto_LoginResponse()
                refusal.id = login.id
                refusal.error.code = code
                refusal.error.message = code == 503 ? "service unavailable" : "unknown device or wrong security token"
                outbox.send(.loginResponse(refusal))
                outbox.send(.close(McsProto_Close()))
                return false
            }
            if misbehaviour == .closeAfterLogin {
                outbox.send(.loginResponse(response))
                return false
            }
            if misbehaviour == .pingFlood { startPings(every: login.heartbeatStat.intervalMs, to: outbox) }
            if misbehaviour == .wrongVersion {
                outbox.send(raw: Data([40]) + (try MCSFraming.frame(.loginResponse(response), withVersion: false)))
                return true
            }
            outbox.send(.loginResponse(response))
            silent = try misbehaviour.act(on: outbox)
            return true
        case .heartbeatPing:
            outbox.send(.heartbeatAck(McsProto_HeartbeatAck()))
            return true
        case .heartbeatAck:
            if let device { emulator.events.emit("fcm mcs ping answered: device \(device)") }
            return true
        case .iq:
            if let device, let ids = message.selectivelyAcknowledged { try await emulator.acknowledge(ids, device: device) }
            return true
        case .close:
            return false
        default:
            return device != nil
        }
    }

    private func startPings(every intervalMs: Int32, to outbox: MCSSessionOutbox) {
        guard intervalMs > 0 else { return }
        Task {
            while (try? await Task.sleep(for: .milliseconds(Int(intervalMs)))) != nil {
                outbox.send(.heartbeatPing(McsProto_HeartbeatPing()))
                if outbox.isFinished { return }
            }
        }
    }
}
