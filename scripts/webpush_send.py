"""Web Push senders from PyPI against a pushrelay endpoint (run through scripts/webpush-send.sh python):

    webpush_send.py vapid-key FILE
        Writes a new VAPID private key (PEM) to FILE and prints {"application_server_key": ...}: its public key,
        uncompressed, base64url, what a subscription restricted to it is made with.
    webpush_send.py send LIBRARY ENDPOINT PLAINTEXT [VAPID_PRIVATE_KEY_PEM_FILE]
        LIBRARY is pywebpush or webpush (the webpush library always signs VAPID, so it needs the key file).
        Makes a subscriber key pair and auth secret as a browser would, encrypts the plaintext for them (aes128gcm,
        RFC 8291) and posts it with TTL 60. Prints one JSON object: status (also when the push service refused it),
        location, body (the encrypted bytes sent, base64url), receiver (the subscriber's private key, base64url of its
        32-byte scalar) and auth.
    webpush_send.py send-to SUBSCRIPTION_JSON PLAINTEXT
        Sends the plaintext with pywebpush (no VAPID, TTL 60) to a subscription someone else holds the keys of: its
        browser PushSubscription JSON, as `pushctl webpush subscribe` prints it. Prints {"status": ...}, also when
        the push service refused it (410 for a removed subscription).
    webpush_send.py decrypt BODY RECEIVER AUTH
        Decrypts a body the device received with http_ece (what pywebpush encrypts with); prints the plaintext.
"""
import base64
import json
import os
import sys

import http_ece
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def send_with_pywebpush(endpoint, keys, plaintext, vapid_file):
    from pywebpush import WebPushException, webpush

    signing = {"vapid_private_key": vapid_file, "vapid_claims": {"sub": "mailto:ops@example.net"}} if vapid_file else {}
    try:
        response = webpush({"endpoint": endpoint, "keys": keys}, data=plaintext, ttl=60, content_encoding="aes128gcm", **signing)
    except WebPushException as refusal:
        # A refusal (410 for a removed subscription) is an answer to report, not a failure of the script.
        if refusal.response is None:
            raise
        response = refusal.response
    return response, response.request.body


def send_with_webpush(endpoint, keys, plaintext, vapid_file):
    from webpush import WebPush, WebPushSubscription

    with open(vapid_file, "rb") as file:
        private_pem = file.read()
    key = serialization.load_pem_private_key(private_pem, password=None)
    public_pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    message = WebPush(private_key=private_pem, public_key=public_pem, subscriber="ops@example.net").get(
        plaintext, WebPushSubscription(endpoint=endpoint, keys=keys), ttl=60)
    return requests.post(endpoint, data=message.encrypted, headers=dict(message.headers), timeout=30), message.encrypted


def vapid_key(path):
    key = ec.generate_private_key(ec.SECP256R1())
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as file:
        file.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    print(json.dumps({"application_server_key": b64url(public)}))


def send(library, endpoint, plaintext, vapid_file=None):
    receiver = ec.generate_private_key(ec.SECP256R1())
    auth = os.urandom(16)
    keys = {
        "p256dh": b64url(receiver.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)),
        "auth": b64url(auth),
    }
    sender = {"pywebpush": send_with_pywebpush, "webpush": send_with_webpush}[library]
    response, body = sender(endpoint, keys, plaintext.encode(), vapid_file)
    print(json.dumps({
        "status": response.status_code, "location": response.headers.get("Location"), "body": b64url(body),
        "receiver": b64url(receiver.private_numbers().private_value.to_bytes(32, "big")), "auth": b64url(auth),
    }))


def send_to(subscription_json, plaintext):
    from pywebpush import WebPushException, webpush

    subscription = json.loads(subscription_json)
    try:
        response = webpush({"endpoint": subscription["endpoint"], "keys": subscription["keys"]}, data=plaintext.encode(),
                           ttl=60, content_encoding="aes128gcm")
    except WebPushException as refusal:
        if refusal.response is None:
            raise
        response = refusal.response
    print(json.dumps({"status": response.status_code}))


def decrypt(body, receiver, auth):
    key = ec.derive_private_key(int.from_bytes(b64url_decode(receiver), "big"), ec.SECP256R1())
    sys.stdout.buffer.write(http_ece.decrypt(b64url_decode(body), private_key=key, auth_secret=b64url_decode(auth), version="aes128gcm"))


if __name__ == "__main__":
    {"vapid-key": vapid_key, "send": send, "send-to": send_to, "decrypt": decrypt}[sys.argv[1]](*sys.argv[2:])
