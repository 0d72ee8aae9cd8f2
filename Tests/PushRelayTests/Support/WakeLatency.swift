import Testing

/// Three rounds of: a long-poll waiting on `poller`, a send to its device through `sender`; each timed from the
/// send's answer to the poll's. The wake happens by the time the send answers (or, across instances, just after),
/// so what remains is the poll's own answer, not a polling interval. A poll that missed its wake-up takes the whole
/// wait (10 s) in every round: the best of three keeps a loaded 2-CPU CI machine from failing the tests using this.
func wakeLatencies(sender: TestRelay, poller: TestRelay, device: TestDevice) async throws -> [Duration] {
    let clock = ContinuousClock()
    var latencies: [Duration] = []
    var cursor: Int64 = 0
    for _ in 1...3 {
        let poll = Task { [cursor] in try await poller.poll(device, query: "after=\(cursor)&wait=10") }
        try await poller.waitForWaitingPolls(1)
        _ = try await sender.send(to: device)
        let sent = clock.now
        let result = try await poll.value
        latencies.append(clock.now - sent)
        #expect(result.messages.count == 1)
        cursor = result.next
    }
    #expect(latencies.allSatisfy { $0 < .seconds(5) }, "poll answers after the send: \(latencies)")
    return latencies
}
