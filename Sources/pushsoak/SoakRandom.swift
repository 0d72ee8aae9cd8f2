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

    private struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private func draw<T>(_ body: (inout Generator) -> T) -> T {
        state.withLock { state in
            var generator = Generator(state: state)
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
