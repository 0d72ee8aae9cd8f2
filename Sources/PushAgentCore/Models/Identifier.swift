/// Opaque ids like `apr_3k9x…`: a type prefix (readable in logs and CLI prefixes) and 80 random bits in base32.
public enum Identifier {
    public static func make(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        let suffix = (0..<16).map { _ in alphabet[Int(generator.next(upperBound: UInt8(32)))] }
        return prefix + "_" + String(suffix)
    }
}
