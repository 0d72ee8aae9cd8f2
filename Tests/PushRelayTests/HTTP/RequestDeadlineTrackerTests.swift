import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import HTTPTypes
import Testing
@testable import PushRelay

/// `RequestDeadlineHandler` telling the relay's real `ConnectionSlots` (here with room for one connection) when a
/// connection opens, starts or stops awaiting a request, and closes: what the slots evict or refuse follows from it.
@Suite("RequestDeadlineHandler with ConnectionSlots")
struct RequestDeadlineTrackerTests {
    private let slots = ConnectionSlots(limit: 1, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })

    /// A request arrived whole; its answer is pending.
    private func sendRequest(on channel: EmbeddedChannel) throws {
        try channel.writeInbound(RequestDeadlineHandlerTests.head)
        try channel.writeInbound(HTTPRequestPart.end(nil))
    }

    private func answer(on channel: EmbeddedChannel) throws {
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
    }

    @Test func aConnectionAwaitingARequestMakesRoomForANewOne() throws {
        let idle = try deadlineConnection(tracker: slots)
        defer { release(idle) }
        let newcomer = try deadlineConnection(tracker: slots)
        defer { release(newcomer) }
        #expect(!idle.isActive)
        #expect(newcomer.isActive)
        #expect(slots.openCount == 1)
    }

    /// The tracker refusing a connection closes it at once: a waiting long-poll is not pushed out by a newcomer.
    @Test func aConnectionBeingAnsweredKeepsItsSlotAndTheNewcomerIsClosed() throws {
        let answering = try deadlineConnection(tracker: slots)
        defer { release(answering) }
        try sendRequest(on: answering)
        let refused = try deadlineConnection(tracker: slots)
        defer { release(refused) }
        #expect(!refused.isActive)
        #expect(answering.isActive)

        // Once answered it awaits a request again, and can be made room from.
        try answer(on: answering)
        let next = try deadlineConnection(tracker: slots)
        defer { release(next) }
        #expect(!answering.isActive)
        #expect(next.isActive)
    }

    @Test func aClosedConnectionGivesItsSlotBack() throws {
        let first = try deadlineConnection(tracker: slots)
        defer { release(first) }
        try sendRequest(on: first)
        try first.close().wait()
        // An embedded channel completes its close future on the loop's next turn, as a real one does.
        first.embeddedEventLoop.run()
        #expect(slots.openCount == 0)
        let second = try deadlineConnection(tracker: slots)
        defer { release(second) }
        #expect(second.isActive)
        #expect(slots.openCount == 1)
    }

    /// The handler tells the slots of a closed connection when the channel goes inactive; taken out of a connection
    /// that stays open, it leaves that to the channel's close, so the slot is neither freed early nor kept for good.
    @Test func aConnectionWhoseHandlerWasRemovedKeepsItsSlotUntilItCloses() throws {
        let channel = try deadlineConnection(tracker: slots)
        defer { release(channel) }
        let handler = try channel.pipeline.syncOperations.handler(type: HTTPTypesRequestDeadline.self)
        try channel.pipeline.syncOperations.removeHandler(handler).wait()
        #expect(slots.openCount == 1, "still open")
        try channel.close().wait()
        channel.embeddedEventLoop.run()
        #expect(slots.openCount == 0)
    }
}
