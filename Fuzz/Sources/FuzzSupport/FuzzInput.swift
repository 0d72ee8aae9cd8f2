import Foundation

/// How a target turns libFuzzer's bytes into what a parser receives.
public enum FuzzInput {
    /// The bytes as text, invalid UTF-8 repaired the way every reader of wire text in the agent does.
    public static func text(_ bytes: Data) -> String { String(decoding: bytes, as: UTF8.self) }

    /// A push's `data` (FCM's map of strings) as `key=value` lines: a format the fuzzer can mutate without
    /// breaking JSON syntax on nearly every try. The key ends at the first `=`, so values keep theirs (base64).
    public static func pushData(_ bytes: Data) -> [String: String] {
        var data: [String: String] = [:]
        for line in text(bytes).split(separator: "\n", omittingEmptySubsequences: true) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            data[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return data
    }

    /// The first byte picks one of `count` ways to read the rest, so one target covers a family of parsers and
    /// the fuzzer learns which byte leads where.
    public static func mode(of bytes: Data, count: Int) -> (mode: Int, rest: Data)? {
        guard let first = bytes.first else { return nil }
        return (Int(first) % count, bytes.dropFirst())
    }
}
