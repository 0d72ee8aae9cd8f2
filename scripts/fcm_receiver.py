"""Receives FCM messages with the real firebase-messaging client (PyPI), pointed at pushsim's FCM emulator: the
interop test of the emulator (Tests/IntegrationTests/FCMEmulatorInteropTests.swift). Run through fcm-receiver.sh.

    fcm_receiver.py HTTP_BASE MCS_HOST MCS_PORT STATE_FILE

firebase-messaging has Google's addresses as module constants, so they are replaced here before it runs; the
emulator's TLS certificate is trusted through SSL_CERT_FILE (Python's default context reads it). STATE_FILE keeps the
credentials and the persistent ids received, so a second run logs in as the same device, as an app restart would.
Prints JSON lines: {"event": "registered", "fcm_token": ...}, then {"event": "message", "persistent_id": ...,
"message": ...} per message; SIGTERM stops it.
"""
import asyncio
import json
import os
import signal
import sys

import firebase_messaging.fcmpushclient as pushclient
import firebase_messaging.fcmregister as register
from firebase_messaging import FcmPushClient, FcmPushClientConfig, FcmRegisterConfig


def emit(**fields):
    print(json.dumps(fields), flush=True)


async def main(http_base, mcs_host, mcs_port, state_file):
    register.GCM_CHECKIN_URL = http_base + "/fcm/checkin"
    register.GCM_REGISTER_URL = http_base + "/fcm/c2dm/register3"
    register.FCM_INSTALLATION = http_base + "/fcm/installations/v1/"
    register.FCM_REGISTRATION = http_base + "/fcm/registrations/v1/"
    pushclient.MCS_HOST = mcs_host
    pushclient.MCS_PORT = int(mcs_port)

    state = {"credentials": None, "persistent_ids": []}
    if os.path.exists(state_file):
        with open(state_file) as f:
            state = json.load(f)

    def save():
        with open(state_file + ".tmp", "w") as f:
            json.dump(state, f)
        os.replace(state_file + ".tmp", state_file)

    def credentials_updated(credentials):
        state["credentials"] = credentials
        save()

    def on_message(message, persistent_id, _context):
        state["persistent_ids"].append(persistent_id)
        save()
        emit(event="message", persistent_id=persistent_id, message=message)

    config = FcmRegisterConfig(project_id="pushagent-test", app_id="1:123456789012:web:0123abcd",
                               api_key="AIzaSyPushagentTest", messaging_sender_id="123456789012")
    client = FcmPushClient(on_message, config, state["credentials"], credentials_updated,
                           received_persistent_ids=state["persistent_ids"],
                           config=FcmPushClientConfig(server_heartbeat_interval=2, client_heartbeat_interval=4))
    token = await client.checkin_or_register()
    emit(event="registered", fcm_token=token)
    await client.start()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await client.stop()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
