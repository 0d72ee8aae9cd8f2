import Foundation
import FuzzSupport
@testable import PushAgentCore

@_cdecl("FuzzMCSFraming_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testMCSFraming) }

/// A byte stream as an MCS peer might send it, delivered in chunks of the size the first byte picks: every stanza
/// the decoder returns frames again to bytes that decode to the same stanza, and what it holds stays within one
/// stanza's limit plus one chunk, whatever the stream.
func testMCSFraming(_ bytes: Data) {
    guard let chunkByte = bytes.first else { return }
    let stream = bytes.dropFirst()
    let chunk = Int(chunkByte) + 1
    var decoder = MCSFrameDecoder(maxStanzaSize: 4096)
    var first = true
    for start in stride(from: stream.startIndex, to: stream.endIndex, by: chunk) {
        decoder.append(stream[start..<min(start + chunk, stream.endIndex)])
        precondition(decoder.pendingByteCount <= 4096 + 8 + chunk, "the decoder holds \(decoder.pendingByteCount) bytes")
        do {
            while let message = try decoder.next() {
                checkRoundTrip(message, withVersion: first)
                first = false
            }
        } catch {
            return
        }
    }
}

private func checkRoundTrip(_ message: MCSMessage, withVersion: Bool) {
    if case .unhandled = message { return }
    guard let framed = try? MCSFraming.frame(message, withVersion: true) else { return }
    var again = MCSFrameDecoder(maxStanzaSize: 1 << 20)
    again.append(framed)
    guard let decoded = try? again.next() else { preconditionFailure("\(message) framed does not decode") }
    precondition(decoded == message, "\(message) came back as \(decoded)")
}
