import ClusterHarness
import Synchronization

/// One seeded generator (SplitMix64) shared by every random choice of a run, so the seed printed at the start
/// names the run's plan of faults, kills and samples (the timing of the processes still varies).
final class SoakRandom: Sendable {
    let seed: UInt64
    private let state: Mutex<UInt64>

    init(seed: UInt64) {
        self.seed = seed
        state = Mutex(seed)
    }

    private func draw<T>(_ body: (inout SplitMix64) -> T) -> T {
        state.withLock { state in
            var generator = SplitMix64(seed: state)
            defer { state = generator.state }
            return body(&generator)
        }
    }

    func uniform(_ range: ClosedRange<Double>) -> Double { draw { Double.random(in: range, using: &$0) } }
    func uniform(_ range: Range<Double>) -> Double { draw { Double.random(in: range, using: &$0) } }
    func integer(_ range: Range<Int>) -> Int { draw { Int.random(in: range, using: &$0) } }
    func chance(_ probability: Double) -> Bool { uniform(0.0..<1.0) < probability }
    func element<T>(of elements: [T]) -> T { elements[integer(0..<elements.count)] }
}
