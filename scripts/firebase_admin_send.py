"""One messaging.send() through pushrelay with firebase-admin; see firebase-admin-send.sh."""
import datetime
import json
import sys

import firebase_admin
import google.auth.exceptions
from firebase_admin import credentials, exceptions, messaging


def message(device_token, kind):
    if kind == "minimal":
        return messaging.Message(fid=device_token, data={"sender": "firebase-admin"})
    # Every platform block, built from firebase-admin's own classes, as an identity provider's backend may send it.
    return messaging.Message(
        token=device_token,
        data={"sender": "firebase-admin"},
        notification=messaging.Notification(title="Sign in?", body="Approve the sign-in", image="https://example.com/i.png"),
        android=messaging.AndroidConfig(
            collapse_key="signin", priority="high", ttl=datetime.timedelta(seconds=90, milliseconds=500),
            restricted_package_name="org.example.authenticator", data={"sender": "firebase-admin", "via": "android"},
            notification=messaging.AndroidNotification(
                title="Sign in?", body="Approve", channel_id="signin", priority="high", vibrate_timings_millis=[500]),
            fcm_options=messaging.AndroidFCMOptions(analytics_label="signin-android"), direct_boot_ok=True),
        apns=messaging.APNSConfig(
            headers={"apns-priority": "10"},
            payload=messaging.APNSPayload(aps=messaging.Aps(
                alert=messaging.ApsAlert(title="Sign in?", body="Approve"), badge=1, sound="default",
                content_available=True)),
            fcm_options=messaging.APNSFCMOptions(image="https://example.com/i.png")),
        webpush=messaging.WebpushConfig(
            headers={"TTL": "300"}, data={"w": "1"},
            notification=messaging.WebpushNotification(title="Sign in?", body="Approve"),
            fcm_options=messaging.WebpushFCMOptions(link="https://example.com/")),
        fcm_options=messaging.FCMOptions(analytics_label="signin"))


def main(service_account_file, relay_url, device_token, kind="minimal"):
    # firebase-admin has no setting for the FCM endpoint: point its messaging service at the relay. The access
    # token comes from the service-account file's token_uri, which google-auth honours as it is.
    messaging._MessagingService.FCM_URL = relay_url.rstrip("/") + "/v1/projects/{0}/messages:send"
    app = firebase_admin.initialize_app(credentials.Certificate(service_account_file))
    try:
        name = messaging.send(message(device_token, kind), app=app)
    except (exceptions.FirebaseError, google.auth.exceptions.GoogleAuthError) as error:
        print(json.dumps({"error": type(error).__name__, "message": str(error)}))
        return 1
    expiry = app.credential.get_credential().expiry  # google-auth keeps it as naive UTC
    lifetime = (expiry.replace(tzinfo=datetime.timezone.utc) - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
    print(json.dumps({"name": name, "token_lifetime": round(lifetime)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
