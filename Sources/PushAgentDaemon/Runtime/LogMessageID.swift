/// journald MESSAGE_IDs of the key events (explained in the catalog under systemd/).
enum LogMessageID {
    static let approvalCreated = "3318ff4fe4194bd8909797d473cb75ef"
    static let approvalAnswered = "8b8c40c1ad3d4c168b02886b57c9be84"
    static let approvalExpired = "f7e0f1977322458abe7420b778da2314"
    static let pushRejected = "ab0d685382424892bdfdeae470c2c66a"
    static let relayStateChanged = "df705e7d3707476c9f07c10a96c0a1b7"
    static let relayResynced = "4e1b7c0d2a9f4f3c8d6e5b4a39281706"
    static let tokenChanged = "c620b28cc6c24a7991c2ae4233ae267d"
    static let providerTokenUpdate = "5cc54471e3b6476f8d7a450e9401932f"
    static let stepUpWithdrawn = "9d0c2f3e8b7a4e51a6f4c2d1e0b9a877"
    static let configReloaded = "bb4c5f711e4d4011bfb91f7b1768895b"
    static let pushBombing = "d12a203ec53b402cb78501f985ce23aa"
    static let accountMuted = "dded9d1ad92c4b8dadce3ed471e8578c"
    static let fcmRegistered = "6a3f0f4e9d7c4b1e8a2c5d7f1b3e9c40"
    static let fcmConnection = "0e8d2b6a4c1f4d3a9b7e5c2f8a1d6b93"
    static let fcmUnreadable = "b4c7e1d9a2f84e6c8d3b0a5f7e2c9d11"
}
