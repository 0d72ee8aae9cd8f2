// /org/unifiedpush/Distributor: the apps' Register and Unregister calls (Distributor1 and Distributor2), read and
// handed to Swift, which answers later (registering needs a round trip to pushagentd); Introspect by hand, since a
// node callback (not a vtable) serves the path and sd-bus only introspects vtables.
#include "bus_private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define INTROSPECTABLE "org.freedesktop.DBus.Introspectable"
#define PEER "org.freedesktop.DBus.Peer"

// Distributor1 and Distributor2 as the spec's XML files define them (Distributor2 as amended within DBUS_0.3.0:
// Unregister returns an empty a{sv}).
static const char introspection[] =
    "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
    " \"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n"
    "<node>\n"
    " <interface name=\"" UP_DISTRIBUTOR1 "\">\n"
    "  <method name=\"Register\">\n"
    "   <arg name=\"serviceName\" type=\"s\" direction=\"in\"/>\n"
    "   <arg name=\"token\" type=\"s\" direction=\"in\"/>\n"
    "   <arg name=\"description\" type=\"s\" direction=\"in\"/>\n"
    "   <arg name=\"registrationResult\" type=\"s\" direction=\"out\"/>\n"
    "   <arg name=\"registrationResultReason\" type=\"s\" direction=\"out\"/>\n"
    "  </method>\n"
    "  <method name=\"Unregister\">\n"
    "   <arg name=\"token\" type=\"s\" direction=\"in\"/>\n"
    "   <annotation name=\"org.freedesktop.DBus.Method.NoReply\" value=\"true\"/>\n"
    "  </method>\n"
    " </interface>\n"
    " <interface name=\"" UP_DISTRIBUTOR2 "\">\n"
    "  <method name=\"Register\">\n"
    "   <arg name=\"args\" type=\"a{sv}\" direction=\"in\"/>\n"
    "   <arg name=\"res\" type=\"a{sv}\" direction=\"out\"/>\n"
    "  </method>\n"
    "  <method name=\"Unregister\">\n"
    "   <arg name=\"args\" type=\"a{sv}\" direction=\"in\"/>\n"
    "   <arg name=\"res\" type=\"a{sv}\" direction=\"out\"/>\n"
    "  </method>\n"
    " </interface>\n"
    " <interface name=\"" INTROSPECTABLE "\">\n"
    "  <method name=\"Introspect\">\n"
    "   <arg name=\"xml_data\" type=\"s\" direction=\"out\"/>\n"
    "  </method>\n"
    " </interface>\n"
    " <interface name=\"" PEER "\">\n"
    "  <method name=\"Ping\"/>\n"
    "  <method name=\"GetMachineId\">\n"
    "   <arg name=\"machine_uuid\" type=\"s\" direction=\"out\"/>\n"
    "  </method>\n"
    " </interface>\n"
    "</node>\n";

int up_bus_read_string_fields(sd_bus_message *m, const char *const *keys, const char **values, size_t count,
                              char *problem, size_t problem_size) {
    for (size_t i = 0; i < count; i++) values[i] = NULL;
    int r = sd_bus_message_enter_container(m, 'a', "{sv}");
    if (r < 0) return r;
    while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
        const char *key = NULL, *contents = NULL;
        if ((r = sd_bus_message_read_basic(m, 's', &key)) < 0) return r;
        if ((r = sd_bus_message_peek_type(m, NULL, &contents)) < 0) return r;
        size_t index = count;
        for (size_t i = 0; i < count; i++)
            if (strcmp(key, keys[i]) == 0) index = i;
        if (index == count) {
            r = sd_bus_message_skip(m, "v");
        } else if (strcmp(contents, "s") != 0) {
            snprintf(problem, problem_size, "the field \"%s\" must hold a string (s), not (%s)", key, contents);
            return -EINVAL;
        } else if (values[index]) {
            snprintf(problem, problem_size, "the field \"%s\" is given twice", key);
            return -EINVAL;
        } else {
            r = sd_bus_message_read(m, "v", "s", &values[index]);
        }
        if (r < 0) return r;
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    }
    if (r < 0) return r;
    return sd_bus_message_exit_container(m);
}

static int invalid(sd_bus_message *m, const char *text) {
    int r = sd_bus_reply_method_errorf(m, SD_BUS_ERROR_INVALID_ARGS, "%s", text);
    return r < 0 ? r : 1;
}

// Reads the call's arguments into `call`; on a malformed call, replies InvalidArgs and returns 0.
static int read_call(sd_bus_message *m, up_bus_call *call) {
    char problem[512] = "";
    const char *what = call->method == UP_BUS_REGISTER ? "Register" : "Unregister";
    if (call->version == 1) {
        const char *signature = call->method == UP_BUS_REGISTER ? "sss" : "s";
        if (!sd_bus_message_has_signature(m, signature)) {
            snprintf(problem, sizeof problem, UP_DISTRIBUTOR1 ".%s takes (%s), not (%s)", what, signature,
                     sd_bus_message_get_signature(m, 1));
            return invalid(m, problem) < 0 ? -EIO : 0;
        }
        int r = call->method == UP_BUS_REGISTER
                    ? sd_bus_message_read(m, "sss", &call->service, &call->token, &call->description)
                    : sd_bus_message_read(m, "s", &call->token);
        return r < 0 ? (invalid(m, "unreadable arguments") < 0 ? -EIO : 0) : 1;
    }
    if (!sd_bus_message_has_signature(m, "a{sv}")) {
        snprintf(problem, sizeof problem, UP_DISTRIBUTOR2 ".%s takes (a{sv}), not (%s)", what,
                 sd_bus_message_get_signature(m, 1));
        return invalid(m, problem) < 0 ? -EIO : 0;
    }
    static const char *const keys[] = {"service", "token", "description", "vapid"};
    const char *values[4];
    size_t count = call->method == UP_BUS_REGISTER ? 4 : 2;
    int r = up_bus_read_string_fields(m, keys, values, count, problem, sizeof problem);
    if (r < 0) return invalid(m, problem[0] ? problem : "unreadable arguments") < 0 ? -EIO : 0;
    if (call->method == UP_BUS_REGISTER) {
        call->service = values[0];
        call->description = values[2];
        call->vapid = values[3];
        if (!call->service) return invalid(m, "the field \"service\" (s) is missing") < 0 ? -EIO : 0;
    }
    call->token = values[1];
    if (!call->token) return invalid(m, "the field \"token\" (s) is missing") < 0 ? -EIO : 0;
    return 1;
}

static int on_distributor_message(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    up_bus *self = userdata;
    const char *interface = sd_bus_message_get_interface(m);
    const char *member = sd_bus_message_get_member(m);
    if (!member) return 0;
    // sd-bus answers Ping and GetMachineId itself.
    if (interface && strcmp(interface, PEER) == 0) return 0;
    if ((!interface || strcmp(interface, INTROSPECTABLE) == 0) && strcmp(member, "Introspect") == 0) {
        int r = sd_bus_reply_method_return(m, "s", introspection);
        return r < 0 ? r : 1;
    }
    up_bus_call call = {0};
    if (strcmp(member, "Register") == 0) call.method = UP_BUS_REGISTER;
    else if (strcmp(member, "Unregister") == 0) call.method = UP_BUS_UNREGISTER;
    if (interface && strcmp(interface, UP_DISTRIBUTOR1) == 0) call.version = 1;
    else if (interface && strcmp(interface, UP_DISTRIBUTOR2) == 0) call.version = 2;
    // A call without an interface (the spec allows it) is told apart by its arguments.
    else if (!interface) call.version = sd_bus_message_has_signature(m, "a{sv}") ? 2 : 1;
    if (!call.method || !call.version) {
        int r = sd_bus_reply_method_errorf(m, SD_BUS_ERROR_UNKNOWN_METHOD, "no method %s.%s on %s",
                                           interface ? interface : "(none)", member, UP_DISTRIBUTOR_PATH);
        return r < 0 ? r : 1;
    }
    int r = read_call(m, &call);
    if (r <= 0) return r < 0 ? r : 1;
    call.sender = sd_bus_message_get_sender(m);
    call.message = m;
    char problem[512] = "";
    if (self->on_call(self->context, &call, problem, sizeof problem) < 0) return invalid(m, problem);
    return 1;
}

int up_bus_add_distributor_object(up_bus *self) {
    return sd_bus_add_object(self->bus, &self->object_slot, UP_DISTRIBUTOR_PATH, on_distributor_message, self);
}

void *up_bus_message_ref(void *message) { return sd_bus_message_ref(message); }

void up_bus_message_unref(void *message) { sd_bus_message_unref(message); }

static int append_string_entry(sd_bus_message *m, const char *key, const char *value) {
    return sd_bus_message_append(m, "{sv}", key, "s", value);
}

int up_bus_reply_register(void *message, int version, const char *failure_reason) {
    const char *result = failure_reason ? "REGISTRATION_FAILED" : "REGISTRATION_SUCCEEDED";
    if (version == 1) return sd_bus_reply_method_return(message, "ss", result, failure_reason ? failure_reason : "");
    // sd_bus_reply_method_return skips a caller that wants no reply by itself; building the reply here refuses it.
    if (!sd_bus_message_get_expect_reply(message)) return 0;
    sd_bus_message *reply = NULL;
    int r = sd_bus_message_new_method_return(message, &reply);
    if (r >= 0) r = sd_bus_message_open_container(reply, 'a', "{sv}");
    if (r >= 0) r = append_string_entry(reply, "success", result);
    if (r >= 0 && failure_reason) r = append_string_entry(reply, "reason", failure_reason);
    if (r >= 0) r = sd_bus_message_close_container(reply);
    if (r >= 0) r = sd_bus_send(NULL, reply, NULL);
    sd_bus_message_unref(reply);
    return r;
}

int up_bus_reply_unregister(void *message, int version) {
    if (version == 1) return sd_bus_reply_method_return(message, "");
    return sd_bus_reply_method_return(message, "a{sv}", 0);
}

int up_bus_reply_error(void *message, const char *name, const char *text) {
    return sd_bus_reply_method_errorf(message, name, "%s", text);
}
