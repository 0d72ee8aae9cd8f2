/// Opaque ids like `apr_3k9x…`: a type prefix (readable in logs and CLI prefixes) and 80 random bits in base32.
public enum Identifier {
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
    static let randomLength = 16

    /// Each letter is five random bits (the alphabet has 32), twelve taken from each 64-bit draw: a draw is a system
    /// call (getrandom), and one a letter was sixteen a push.
    public static func make(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let draws: [UInt64] = [generator.next(), generator.next()]
        let suffix = (0..<randomLength).map { index in alphabet[Int(draws[index / 12] >> UInt64(5 * (index % 12)) & 31)] }
        return prefix + "_" + String(suffix)
    }

    /// Whether `id` has the shape `make(prefix:)` gives: an id from elsewhere (a backup) that does not cannot be
    /// named in a URL path or by a prefix, so it could never be removed.
    public static func isWellFormed(_ id: String, prefix: String) -> Bool {
        guard id.hasPrefix(prefix + "_") else { return false }
        let suffix = id.dropFirst(prefix.count + 1)
        return suffix.count == randomLength && suffix.allSatisfy(alphabet.contains)
    }

    /// The shape in words, for the message that refuses an id without it.
    public static func shape(prefix: String) -> String {
        "\(prefix)_ and \(randomLength) characters of a–z and 2–7"
    }
}
