"""One messaging.send() through pushrelay with firebase-admin; see firebase-admin-send.sh."""
import datetime
import json
import sys

import firebase_admin
import google.auth.exceptions
from firebase_admin import credentials, exceptions, messaging


def main(service_account_file, relay_url, device_token):
    # firebase-admin has no setting for the FCM endpoint: point its messaging service at the relay. The access
    # token comes from the service-account file's token_uri, which google-auth honours as it is.
    messaging._MessagingService.FCM_URL = relay_url.rstrip("/") + "/v1/projects/{0}/messages:send"
    app = firebase_admin.initialize_app(credentials.Certificate(service_account_file))
    try:
        name = messaging.send(messaging.Message(fid=device_token, data={"sender": "firebase-admin"}), app=app)
    except (exceptions.FirebaseError, google.auth.exceptions.GoogleAuthError) as error:
        print(json.dumps({"error": type(error).__name__, "message": str(error)}))
        return 1
    expiry = app.credential.get_credential().expiry  # google-auth keeps it as naive UTC
    lifetime = (expiry.replace(tzinfo=datetime.timezone.utc) - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
    print(json.dumps({"name": name, "token_lifetime": round(lifetime)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
