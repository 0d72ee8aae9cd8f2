import Foundation

/// libFuzzer calls a target synchronously, while verification in PushAgentCore is async (jwt-kit). Waits for the
/// async work on a detached task, so each input is finished, crash or not, before the next one starts.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        result.value = await body()
        done.signal()
    }
    done.wait()
    return result.value!
}

private final class ResultBox<T>: @unchecked Sendable {
    // Written once by the task before the semaphore is signalled, read after the wait: no concurrent access.
    var value: T?
}
