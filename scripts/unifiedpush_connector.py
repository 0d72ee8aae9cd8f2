"""A UnifiedPush connector (the app's side of the D-Bus spec DBUS_0.3.0), written from the specification with
dbus-fast, for the tests of pushagent's distributor; run through scripts/unifiedpush-connector.sh.

    register --distributor NAME --service S --token T --version 1|2 [--description D] [--vapid K]
             [--wait-endpoint SECONDS [--log FILE]] [--omit KEY ...] [--field KEY=SIG:VALUE ...]
        Calls Distributor<version>.Register and prints one JSON object: {"success", "reason"} (the v1 reply's two
        strings under the same keys; "reason" null when empty), or {"error", "message"} (exit 1) when the call
        failed on the bus. With --wait-endpoint it first owns S and serves the connector (logging to --log if
        given), and adds "endpoint": what NewEndpoint brought for T within SECONDS (null if nothing came).
        --omit and --field (v2 only) bend the a{sv} for tests of malformed calls: SIG is s or u.
    unregister --distributor NAME --token T --version 1|2 [--no-reply-expected]
        Calls Distributor<version>.Unregister; prints {"unregistered": true} once the distributor answered (at once
        with --no-reply-expected, whose call asks for no reply), or {"error", "message"} (exit 1).
    serve --service S [--service S2 ...] --log FILE [--reply-delay SECONDS] [--no-reply]
        Owns every S (exit 1 if one is taken) and serves Connector1 and Connector2 at /org/unifiedpush/Connector for
        all of them, telling them apart by each call's destination. Prints {"ready": [names]} once they are owned.
        Appends one JSON line per call to FILE, flushed and fsynced before the reply (so a distributor that saw the
        reply finds the line): {"service", "interface", "method", "token", "message_b64", "id", "endpoint",
        "received_at"}, absent fields null, message_b64 standard base64 with padding, received_at when the handler
        took the call (time.time(), CLOCK_REALTIME: comparable with another process's clock on the same machine). Replies after --reply-delay, or never with
        --no-reply. Exits on SIGTERM or SIGINT, and when the bus goes away. Usable as a D-Bus service file's Exec: it
        connects to $DBUS_STARTER_ADDRESS when the bus daemon started it.

Every subcommand takes --bus-address ADDRESS (default: $DBUS_STARTER_ADDRESS, else $DBUS_SESSION_BUS_ADDRESS).
"""
import argparse
import asyncio
import base64
import json
import os
import signal
import sys
import time

from dbus_fast import Message, MessageFlag, MessageType, NameFlag, RequestNameReply, Variant
from dbus_fast.aio import MessageBus

CONNECTOR_PATH = "/org/unifiedpush/Connector"
DISTRIBUTOR_PATH = "/org/unifiedpush/Distributor"
CONNECTOR1 = "org.unifiedpush.Connector1"
CONNECTOR2 = "org.unifiedpush.Connector2"

INTROSPECTION = """<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
<node>
 <interface name="org.unifiedpush.Connector1">
  <method name="Message"><arg name="token" type="s" direction="in"/><arg name="message" type="ay" direction="in"/>
   <arg name="messageIdentifier" type="s" direction="in"/>
   <annotation name="org.freedesktop.DBus.Method.NoReply" value="true"/></method>
  <method name="NewEndpoint"><arg name="token" type="s" direction="in"/><arg name="endpoint" type="s" direction="in"/>
   <annotation name="org.freedesktop.DBus.Method.NoReply" value="true"/></method>
  <method name="Unregistered"><arg name="token" type="s" direction="in"/>
   <annotation name="org.freedesktop.DBus.Method.NoReply" value="true"/></method>
 </interface>
 <interface name="org.unifiedpush.Connector2">
  <method name="Message"><arg name="args" type="a{sv}" direction="in"/><arg name="res" type="a{sv}" direction="out"/></method>
  <method name="NewEndpoint"><arg name="args" type="a{sv}" direction="in"/><arg name="res" type="a{sv}" direction="out"/></method>
  <method name="Unregistered"><arg name="args" type="a{sv}" direction="in"/><arg name="res" type="a{sv}" direction="out"/></method>
 </interface>
</node>
"""


def bus_address(args):
    return args.bus_address or os.environ.get("DBUS_STARTER_ADDRESS") or os.environ.get("DBUS_SESSION_BUS_ADDRESS")


async def connect(args):
    address = bus_address(args)
    if not address:
        sys.exit("no session bus: give --bus-address or set DBUS_SESSION_BUS_ADDRESS")
    return await MessageBus(bus_address=address).connect()


def unpack(value):
    return value.value if isinstance(value, Variant) else value


def call_fields(msg):
    """The call's fields as the log records them, for both versions."""
    fields = {"token": None, "message": None, "id": None, "endpoint": None}
    if msg.interface == CONNECTOR2 or msg.signature == "a{sv}":
        arguments = msg.body[0] if msg.body and isinstance(msg.body[0], dict) else {}
        for key in fields:
            if key in arguments:
                fields[key] = unpack(arguments[key])
    else:
        names = {"Message": ["token", "message", "id"], "NewEndpoint": ["token", "endpoint"], "Unregistered": ["token"]}
        for key, value in zip(names.get(msg.member, []), msg.body):
            fields[key] = value
    return fields


class Connector:
    """Serves /org/unifiedpush/Connector for each owned name, logging every call before answering it."""

    def __init__(self, bus, log_path, reply_delay=0.0, reply=True):
        self.bus = bus
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None
        self.reply_delay = reply_delay
        self.reply = reply
        self.endpoints = {}  # token -> future, for register --wait-endpoint

    def handle(self, msg):
        if msg.message_type != MessageType.METHOD_CALL or msg.path != CONNECTOR_PATH:
            return None
        if msg.interface == "org.freedesktop.DBus.Introspectable" and msg.member == "Introspect":
            return Message.new_method_return(msg, "s", [INTROSPECTION])
        if msg.interface not in (CONNECTOR1, CONNECTOR2, None) or msg.member not in ("Message", "NewEndpoint", "Unregistered"):
            return None
        fields = call_fields(msg)
        self.record(msg, fields)
        if msg.member == "NewEndpoint" and fields["token"] in self.endpoints:
            future = self.endpoints[fields["token"]]
            if not future.done():
                future.set_result(fields["endpoint"])
        if not self.reply or msg.flags & MessageFlag.NO_REPLY_EXPECTED:
            return True
        reply = self.answer(msg, fields)
        if self.reply_delay > 0:
            asyncio.get_running_loop().call_later(self.reply_delay, self.bus.send, reply)
            return True
        return reply

    def answer(self, msg, fields):
        if msg.interface == CONNECTOR1 or (msg.interface is None and msg.signature != "a{sv}"):
            return Message.new_method_return(msg)
        result = {}
        if msg.member == "Message" and fields["id"] is not None:
            result["id"] = Variant("s", fields["id"])  # the acknowledgement
        return Message.new_method_return(msg, "a{sv}", [result])

    def record(self, msg, fields):
        received_at = time.time()
        if not self.log:
            return
        message = fields["message"]
        line = {
            "service": msg.destination,
            "interface": msg.interface,
            "method": msg.member,
            "token": fields["token"],
            "message_b64": base64.b64encode(bytes(message)).decode() if message is not None else None,
            "id": fields["id"],
            "endpoint": fields["endpoint"],
            "received_at": received_at,
        }
        self.log.write(json.dumps(line) + "\n")
        self.log.flush()
        os.fsync(self.log.fileno())


async def own(bus, names):
    for name in names:
        reply = await bus.request_name(name, NameFlag.DO_NOT_QUEUE)
        if reply not in (RequestNameReply.PRIMARY_OWNER, RequestNameReply.ALREADY_OWNER):
            sys.exit(f"{name} is owned by another connection")


def print_json(value):
    print(json.dumps(value), flush=True)


def error_of(reply):
    return {"error": reply.error_name, "message": reply.body[0] if reply.body else ""}


def register_arguments(args):
    if args.version == 1:
        return "sss", [args.service, args.token, args.description or ""]
    fields = {"service": Variant("s", args.service), "token": Variant("s", args.token)}
    if args.description is not None:
        fields["description"] = Variant("s", args.description)
    if args.vapid is not None:
        fields["vapid"] = Variant("s", args.vapid)
    for key in args.omit:
        fields.pop(key, None)
    for spec in args.field:
        key, typed = spec.split("=", 1)
        signature, value = typed.split(":", 1)
        fields[key] = Variant(signature, int(value) if signature == "u" else value)
    return "a{sv}", [fields]


async def register(args):
    bus = await connect(args)
    connector = None
    if args.wait_endpoint is not None:
        await own(bus, [args.service])
        connector = Connector(bus, args.log)
        connector.endpoints[args.token] = asyncio.get_running_loop().create_future()
        bus.add_message_handler(connector.handle)
    signature, body = register_arguments(args)
    reply = await bus.call(Message(destination=args.distributor, path=DISTRIBUTOR_PATH,
                                   interface=f"org.unifiedpush.Distributor{args.version}", member="Register",
                                   signature=signature, body=body))
    if reply.message_type == MessageType.ERROR:
        print_json(error_of(reply))
        return 1
    if args.version == 1:
        result = {"success": reply.body[0], "reason": reply.body[1] or None}
    else:
        answer = reply.body[0]
        result = {"success": unpack(answer.get("success")), "reason": unpack(answer.get("reason"))}
    if connector is not None:
        result["endpoint"] = None
        if result["success"] == "REGISTRATION_SUCCEEDED":
            try:
                result["endpoint"] = await asyncio.wait_for(connector.endpoints[args.token], args.wait_endpoint)
            except asyncio.TimeoutError:
                pass
    print_json(result)
    return 0


async def unregister(args):
    bus = await connect(args)
    if args.version == 1:
        signature, body = "s", [args.token]
    else:
        signature, body = "a{sv}", [{"token": Variant("s", args.token)}]
    message = Message(destination=args.distributor, path=DISTRIBUTOR_PATH,
                      interface=f"org.unifiedpush.Distributor{args.version}", member="Unregister",
                      signature=signature, body=body,
                      flags=MessageFlag.NO_REPLY_EXPECTED if args.no_reply_expected else MessageFlag.NONE)
    if args.no_reply_expected:
        await bus.send(message)
        print_json({"unregistered": True})
        return 0
    reply = await bus.call(message)
    if reply.message_type == MessageType.ERROR:
        print_json(error_of(reply))
        return 1
    print_json({"unregistered": True})
    return 0


async def serve(args):
    bus = await connect(args)
    connector = Connector(bus, args.log, args.reply_delay, not args.no_reply)
    bus.add_message_handler(connector.handle)
    await own(bus, args.service)
    print_json({"ready": args.service})
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, stopped.set)
    disconnected = asyncio.ensure_future(bus.wait_for_disconnect())
    stop = asyncio.ensure_future(stopped.wait())
    await asyncio.wait([disconnected, stop], return_when=asyncio.FIRST_COMPLETED)
    if not disconnected.done():
        bus.disconnect()
    return 0


def main():
    parser = argparse.ArgumentParser(description="A UnifiedPush D-Bus connector for pushagent's tests.")
    parser.add_argument("--bus-address")
    commands = parser.add_subparsers(dest="command", required=True)

    registering = commands.add_parser("register")
    registering.add_argument("--distributor", required=True)
    registering.add_argument("--service", required=True)
    registering.add_argument("--token", required=True)
    registering.add_argument("--description")
    registering.add_argument("--vapid")
    registering.add_argument("--version", type=int, choices=[1, 2], required=True)
    registering.add_argument("--wait-endpoint", type=float)
    registering.add_argument("--log")
    registering.add_argument("--omit", action="append", default=[])
    registering.add_argument("--field", action="append", default=[])

    unregistering = commands.add_parser("unregister")
    unregistering.add_argument("--distributor", required=True)
    unregistering.add_argument("--token", required=True)
    unregistering.add_argument("--version", type=int, choices=[1, 2], required=True)
    unregistering.add_argument("--no-reply-expected", action="store_true")

    serving = commands.add_parser("serve")
    serving.add_argument("--service", action="append", required=True)
    serving.add_argument("--log", required=True)
    serving.add_argument("--reply-delay", type=float, default=0.0)
    serving.add_argument("--no-reply", action="store_true")

    # --bus-address is accepted after the subcommand too, where the test harness puts its own options.
    for sub in (registering, unregistering, serving):
        sub.add_argument("--bus-address", dest="bus_address_late")
    args = parser.parse_args()
    args.bus_address = args.bus_address_late or args.bus_address
    run = {"register": register, "unregister": unregister, "serve": serve}[args.command]
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
