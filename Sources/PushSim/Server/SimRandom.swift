import Foundation

/// What every role draws at random: secrets, tokens and the numbers a sign-in page shows.
enum SimRandom {
    static func bytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in generator.next() })
    }

    /// `count` distinct two-digit numbers.
    static func distinctNumbers(_ count: Int) -> [String] {
        Array((10...99).shuffled().prefix(count)).map(String.init)
    }
}
