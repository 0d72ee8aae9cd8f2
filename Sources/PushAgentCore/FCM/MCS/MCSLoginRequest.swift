extension McsProto_LoginRequest {
    /// The login Chrome's GCM client sends for a checked-in device (protocols.md §7), carrying the persistent ids
    /// acknowledged since the last login so that a lost acknowledgement is not redelivered.
    public static func chrome(device: GCMDevice, receivedPersistentIDs: [String], heartbeatSeconds: Double) -> Self {
        var login = McsProto_LoginRequest()
        let androidID = String(device.androidID)
        login.id = "chrome-" + GCMCheckin.chromeVersion
        login.domain = "mcs.android.com"
        login.user = androidID
        login.resource = androidID
        login.authToken = String(device.securityToken)
        login.deviceID = device.mcsDeviceID
        login.networkType = 1
        login.useRmq2 = true
        login.adaptiveHeartbeat = false
        login.authService = .androidID
        var setting = McsProto_Setting()
        setting.name = "new_vc"
        setting.value = "1"
        login.setting = [setting]
        login.receivedPersistentID = receivedPersistentIDs
        login.heartbeatStat.ip = ""
        login.heartbeatStat.timeout = true
        login.heartbeatStat.intervalMs = Int32(heartbeatSeconds * 1000)
        return login
    }
}
