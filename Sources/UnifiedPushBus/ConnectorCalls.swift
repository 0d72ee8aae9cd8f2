import CUnifiedPushBus
import Foundation

/// Calls to the apps' connectors (`/org/unifiedpush/Connector` on the name each registered with). A call to an app
/// that is not running starts it when it is installed with a D-Bus service file; the bus thread is not held while
/// that happens.
extension DistributorBus {
    /// A push message for the app. The body goes as raw bytes (ay) in both versions; `id` is echoed by a Connector2
    /// app as its acknowledgement. The Web Push limits (1 to 4096 bytes) are the caller's to enforce.
    public func message(to service: String, version: ConnectorVersion, token: String, body: Data, id: String,
                        timeout: Duration) async -> ConnectorDelivery {
        await callConnector(service, version: version, method: Int32(UP_BUS_CONNECTOR_MESSAGE), token: token,
                            body: body, id: id, timeout: timeout)
    }

    /// The registration's endpoint: after every successful Register, and whenever it changes.
    public func newEndpoint(to service: String, version: ConnectorVersion, token: String,
                            endpoint: String) async -> ConnectorDelivery {
        await callConnector(service, version: version, method: Int32(UP_BUS_CONNECTOR_NEW_ENDPOINT), token: token,
                            endpoint: endpoint, timeout: Self.connectorCallTimeout)
    }

    /// The registration is gone: confirms the app's Unregister, or tells it the distributor dropped it.
    public func unregistered(to service: String, version: ConnectorVersion, token: String) async -> ConnectorDelivery {
        await callConnector(service, version: version, method: Int32(UP_BUS_CONNECTOR_UNREGISTERED), token: token,
                            timeout: Self.connectorCallTimeout)
    }

    /// Whether `service` can be reached: it has an owner now, or the bus can start it. An app that is neither has
    /// been uninstalled, and its registrations can go.
    public func isInstalled(_ service: String) async throws -> Bool {
        if let problem = CallValidation.serviceProblem(service) { throw DistributorBusError(problem) }
        return try await perform { bus, error in
            var owned: Int32 = 0
            var activatable: Int32 = 0
            var status = up_bus_name_has_owner(bus, service, &owned, error, 512)
            if status >= 0, owned == 0 { status = up_bus_is_activatable(bus, service, &activatable, error, 512) }
            return (status, owned != 0 || activatable != 0)
        }
    }

    private func callConnector(_ service: String, version: ConnectorVersion, method: Int32, token: String,
                               body: Data = Data(), id: String = "", endpoint: String = "",
                               timeout: Duration) async -> ConnectorDelivery {
        let acknowledging = version == .v2 && method == Int32(UP_BUS_CONNECTOR_MESSAGE) ? id : nil
        let micros = max(1, timeout.components.seconds * 1_000_000 + timeout.components.attoseconds / 1_000_000_000_000)
        let deliveries = inbox.deliveries
        return await withCheckedContinuation { continuation in
            let request = deliveries.add(continuation, acknowledging: acknowledging)
            queue.run { bus in
                guard let bus else {
                    deliveries.resolve(request, .failed("the session bus connection is closed"))
                    return
                }
                var error = [CChar](repeating: 0, count: 512)
                let status = body.withUnsafeBytes { raw in
                    up_bus_call_connector(bus, request, service, Int32(version.rawValue), method, token,
                                          raw.bindMemory(to: UInt8.self).baseAddress, raw.count, id, endpoint,
                                          UInt64(micros), &error, error.count)
                }
                if status < 0 { deliveries.resolve(request, .failed("calling \(service): \(error.nulTerminatedText)")) }
            }
        }
    }
}
