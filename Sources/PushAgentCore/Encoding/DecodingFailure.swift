/// Why JSON did not decode, said by where in it: the field's path, never its value, which may be a secret (a
/// backup's credentials) and is the sender's to know anyway.
public enum DecodingFailure {
    public static func summary(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context): "missing field '\(path(context.codingPath + [key]))'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
             DecodingError.dataCorrupted(let context):
            context.codingPath.isEmpty ? "not JSON" : "field '\(path(context.codingPath))' has a bad value"
        default: "\(error)"
        }
    }

    /// `accounts[2].provider`, as a reader of the JSON would point at it.
    private static func path(_ keys: [any CodingKey]) -> String {
        keys.reduce(into: "") { path, key in
            if let index = key.intValue { path += "[\(index)]" } else { path += (path.isEmpty ? "" : ".") + key.stringValue }
        }
    }
}
