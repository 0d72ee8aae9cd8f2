import Logging
import PushAgentStore

/// What every provider's daemon side is built from.
struct ProviderContext: Sendable {
    let store: AgentStore
    let http: ProviderHTTP
    let events: EventBus
    let config: LiveConfig
    let logger: Logger
}
