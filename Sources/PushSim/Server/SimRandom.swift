import Foundation

/// What every role draws at random: secrets, tokens and the numbers a sign-in page shows.
enum SimRandom {
    /// Eight bytes a draw: each draw is a system call (getrandom), and one a byte was 64 for a ForgeRock push.
    static func bytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var bytes = Data(capacity: count + 7)
        while bytes.count < count { withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) } }
        bytes.removeLast(bytes.count - count)
        return bytes
    }

    /// `count` distinct two-digit numbers.
    static func distinctNumbers(_ count: Int) -> [String] {
        Array((10...99).shuffled().prefix(count)).map(String.init)
    }
}
