import TOMLKit

/// The TOML config file: `listen`, `state_dir` or `database` (a URL, or `[database] url = …, password_file = …`),
/// `registration_key`, `public_url`, `max_connections`, `request_timeout_seconds`, the Web Push rate limits
/// (`webpush_{subscription,vapid_key,address}_{burst,messages_per_second}`), `[sender_keys] project = "key"`
/// and `[service_accounts] project = "key.pub.pem"` (each also a list, for rotation). Unknown keys are errors so
/// that typos do not pass silently.
public struct RelayFileConfig: Sendable, Equatable {
    public var listen: ListenAddress?
    public var stateDirectory: String?
    public var database: RelayDatabaseSetting?
    public var registrationKey: String?
    public var senderKeys: [SenderKey] = []
    public var serviceAccounts: [ServiceAccountKeyFile] = []
    public var publicURL: String?
    public var maxConnections: Int?
    public var requestTimeoutSeconds: Double?
    /// The `webpush_*` keys over the defaults.
    public var webPushRateLimits = WebPushRateLimits()

    public static func parse(_ text: String, fileName: String) throws(RelayConfigError) -> RelayFileConfig {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw RelayConfigError("\(fileName):\(error.source.begin.line): \(error.description)")
        } catch {
            throw RelayConfigError("\(fileName): \(error)")
        }
        var config = RelayFileConfig()
        for key in table.keys {
            let value = table[key]
            switch key {
            case "listen":
                guard let text = value?.string else { throw RelayConfigError("\(fileName): `listen` must be a string") }
                guard let address = ListenAddress(parsing: text) else {
                    throw RelayConfigError("\(fileName): `listen` must be HOST:PORT, got \"\(text)\"")
                }
                config.listen = address
            case "state_dir":
                config.stateDirectory = try nonEmptyString(value, key: key, fileName: fileName)
            case "database":
                config.database = try databaseSetting(value, fileName: fileName)
            case "registration_key":
                config.registrationKey = try nonEmptyString(value, key: key, fileName: fileName)
            case "public_url":
                let text = try nonEmptyString(value, key: key, fileName: fileName)
                guard RelayConfig.isValidPublicURL(text) else {
                    throw RelayConfigError("\(fileName): `public_url` must be an http or https URL without query, got \"\(text)\"")
                }
                config.publicURL = text
            case "max_connections":
                guard let count = value?.int, count >= 1 else {
                    throw RelayConfigError("\(fileName): `max_connections` must be a whole number of at least 1")
                }
                config.maxConnections = count
            case "request_timeout_seconds":
                guard let seconds = value?.double ?? value?.int.map(Double.init), (0.1...600).contains(seconds) else {
                    throw RelayConfigError("\(fileName): `request_timeout_seconds` must be a number from 0.1 to 600")
                }
                config.requestTimeoutSeconds = seconds
            case "webpush_subscription_burst": config.webPushRateLimits.subscription.burst = try burst(value, key: key, fileName: fileName)
            case "webpush_subscription_messages_per_second":
                config.webPushRateLimits.subscription.perSecond = try messagesPerSecond(value, key: key, fileName: fileName)
            case "webpush_vapid_key_burst": config.webPushRateLimits.vapidKey.burst = try burst(value, key: key, fileName: fileName)
            case "webpush_vapid_key_messages_per_second":
                config.webPushRateLimits.vapidKey.perSecond = try messagesPerSecond(value, key: key, fileName: fileName)
            case "webpush_address_burst": config.webPushRateLimits.address.burst = try burst(value, key: key, fileName: fileName)
            case "webpush_address_messages_per_second":
                config.webPushRateLimits.address.perSecond = try messagesPerSecond(value, key: key, fileName: fileName)
            case "sender_keys":
                config.senderKeys = try projectTable(value, key: key, fileName: fileName).map { SenderKey(project: $0, key: $1) }
            case "service_accounts":
                config.serviceAccounts = try projectTable(value, key: key, fileName: fileName)
                    .map { ServiceAccountKeyFile(project: $0, path: $1) }
            default:
                throw RelayConfigError("\(fileName): unknown key `\(key)`")
            }
        }
        if config.stateDirectory != nil, config.database != nil {
            throw RelayConfigError("\(fileName): `state_dir` and `database` both name the relay's state: keep one (`state_dir = \"DIR\"` is `database = \"sqlite:DIR\"`)")
        }
        return config
    }

    /// `database = "URL"`, or `[database]` with `url` and `password_file`.
    private static func databaseSetting(_ value: (any TOMLValueConvertible)?, fileName: String) throws(RelayConfigError) -> RelayDatabaseSetting {
        if value?.string != nil { return RelayDatabaseSetting(url: try nonEmptyString(value, key: "database", fileName: fileName)) }
        guard let table = value?.table else {
            throw RelayConfigError("\(fileName): `database` must be a URL string or a table with `url` and `password_file`")
        }
        var setting = RelayDatabaseSetting(url: "")
        for key in table.keys {
            switch key {
            case "url": setting.url = try nonEmptyString(table[key], key: "database.url", fileName: fileName)
            case "password_file": setting.passwordFile = try nonEmptyString(table[key], key: "database.password_file", fileName: fileName)
            default: throw RelayConfigError("\(fileName): unknown key `database.\(key)` (known: url, password_file)")
            }
        }
        guard !setting.url.isEmpty else { throw RelayConfigError("\(fileName): `[database]` needs `url`") }
        return setting
    }

    /// A rate limit's bucket size: a whole number, 0 for no limit.
    private static func burst(_ value: (any TOMLValueConvertible)?, key: String, fileName: String) throws(RelayConfigError) -> Int {
        guard let count = value?.int, count >= 0 else {
            throw RelayConfigError("\(fileName): `\(key)` must be a whole number, 0 for no limit")
        }
        return count
    }

    /// A rate limit's refill: a number, 0 for no limit.
    private static func messagesPerSecond(_ value: (any TOMLValueConvertible)?, key: String, fileName: String) throws(RelayConfigError) -> Double {
        guard let rate = value?.double ?? value?.int.map(Double.init), rate.isFinite, rate >= 0 else {
            throw RelayConfigError("\(fileName): `\(key)` must be a number of messages a second, 0 for no limit")
        }
        return rate
    }

    private static func nonEmptyString(_ value: (any TOMLValueConvertible)?, key: String, fileName: String) throws(RelayConfigError) -> String {
        guard let text = value?.string, !text.isEmpty else {
            throw RelayConfigError("\(fileName): `\(key)` must be a non-empty string")
        }
        return text
    }

    /// `[key] project = "value"` or `project = ["value1", "value2"]`, as (project, value) pairs in project order.
    private static func projectTable(_ value: (any TOMLValueConvertible)?, key: String, fileName: String)
        throws(RelayConfigError) -> [(project: String, value: String)] {
        guard let projects = value?.table else {
            throw RelayConfigError("\(fileName): `\(key)` must be a table of project = \"value\"")
        }
        var pairs: [(project: String, value: String)] = []
        for project in projects.keys.sorted() {
            let entry = projects[project]
            let values: [String]
            if let single = entry?.string {
                values = [single]
            } else if let list = entry?.array, case let strings = list.compactMap(\.string), strings.count == list.count {
                values = strings
            } else {
                throw RelayConfigError("\(fileName): `\(key).\(project)` must be a string or a list of strings")
            }
            guard !project.contains("/"), !values.isEmpty, !values.contains("") else {
                throw RelayConfigError("\(fileName): `\(key).\(project)` needs a project without `/` and non-empty values")
            }
            pairs += values.map { (project, $0) }
        }
        return pairs
    }
}
