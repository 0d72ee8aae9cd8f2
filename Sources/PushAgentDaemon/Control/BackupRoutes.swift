import ControlAPI
import Hummingbird

/// `POST /v1/backup` and `POST /v1/restore`: both hand over every account's secrets, so both are operators' only.
extension ControlRoutes {
    func registerBackup(on router: Router<PeerContext>, backups: BackupService) {
        router.post("/v1/backup") { request, context in
            let peer = try await writer(context)
            let body = try await request.decodeJSON(BackupRequest.self)
            return try JSONResponse.ok(try await backups.backup(passphrase: body.passphrase, peer: peer))
        }
        router.post("/v1/restore") { request, context in
            let peer = try await writer(context)
            let body = try await request.decodeJSON(RestoreRequest.self, limit: BackupService.restoreRequestLimit)
            return try JSONResponse.ok(try await backups.restore(file: body.backup, passphrase: body.passphrase, peer: peer))
        }
    }
}
