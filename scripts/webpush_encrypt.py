"""Encrypts a Web Push message with PyPI http_ece (what pywebpush encrypts with), a sender nobody here wrote, for the
FCM end-to-end tests (Tests/IntegrationTests/FCMEncodingTests.swift). Run in firebase-messaging's venv, which has
http_ece:

    scripts/fcm-receiver.sh python scripts/webpush_encrypt.py CODING P256DH AUTH < plaintext

CODING is aes128gcm or aesgcm; P256DH and AUTH are the receiver's keys, base64url. Prints one JSON object: raw_data
(base64) and app_data, the stanza's app data as FCM marks each coding (Chromium's GCM encryption provider reads
`content-encoding: aes128gcm` with the whole RFC 8188 body; aesgcm has its salt and key in `encryption`/`crypto-key`).
"""
import base64
import json
import os
import sys

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def main(coding, p256dh, auth):
    plaintext = sys.stdin.buffer.read()
    sender = ec.generate_private_key(ec.SECP256R1())
    salt = os.urandom(16)
    body = http_ece.encrypt(plaintext, salt=salt, private_key=sender, dh=b64url_decode(p256dh),
                            auth_secret=b64url_decode(auth), version=coding)
    if coding == "aes128gcm":
        app_data = {"content-encoding": "aes128gcm"}
    else:
        key = sender.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        app_data = {"encryption": "salt=" + b64url(salt), "crypto-key": "dh=" + b64url(key)}
    print(json.dumps({"raw_data": base64.b64encode(body).decode(), "app_data": app_data}))


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("aes128gcm", "aesgcm"):
        sys.exit("usage: webpush_encrypt.py aes128gcm|aesgcm P256DH AUTH < plaintext")
    main(*sys.argv[1:])
