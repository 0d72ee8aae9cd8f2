// Calls to the apps' /org/unifiedpush/Connector (Connector1 and Connector2). Asynchronous, since the bus daemon may
// first have to start the app (D-Bus activation: the call leaves auto-start on), and the bus thread serves other
// apps meanwhile; the call's own timeout bounds the wait.
#include "bus_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

// What a reply is matched back to; freed with the call's slot, so also when the bus closes with the call open.
typedef struct pending_call {
    up_bus *self;
    uint64_t request;
    int acknowledges;  // a Connector2 Message: its reply carries the id back
} pending_call;

static int on_connector_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    pending_call *pending = userdata;
    up_bus *self = pending->self;
    if (sd_bus_message_is_method_error(m, NULL)) {
        const sd_bus_error *e = sd_bus_message_get_error(m);
        self->on_reply(self->context, pending->request, e && e->name ? e->name : "org.freedesktop.DBus.Error.Failed",
                       e && e->message ? e->message : "", NULL);
        return 0;
    }
    const char *id = NULL;
    if (pending->acknowledges && sd_bus_message_has_signature(m, "a{sv}")) {
        static const char *const keys[] = {"id"};
        char problem[128];
        if (up_bus_read_string_fields(m, keys, &id, 1, problem, sizeof problem) < 0) id = NULL;
    }
    self->on_reply(self->context, pending->request, NULL, NULL, id);
    return 0;
}

static int append_v1(sd_bus_message *m, int method, const char *token, const uint8_t *body, size_t body_size,
                     const char *id, const char *endpoint) {
    int r = sd_bus_message_append_basic(m, 's', token);
    if (r < 0) return r;
    switch (method) {
    case UP_BUS_CONNECTOR_MESSAGE:
        r = sd_bus_message_append_array(m, 'y', body, body_size);
        return r < 0 ? r : sd_bus_message_append_basic(m, 's', id);
    case UP_BUS_CONNECTOR_NEW_ENDPOINT:
        return sd_bus_message_append_basic(m, 's', endpoint);
    default:
        return r;
    }
}

// Connector2's a{sv}. The message goes as bytes (ay): the spec's prose said String until amended, and KDE's
// connector reads a QByteArray.
static int append_v2(sd_bus_message *m, int method, const char *token, const uint8_t *body, size_t body_size,
                     const char *id, const char *endpoint) {
    int r = sd_bus_message_open_container(m, 'a', "{sv}");
    if (r >= 0) r = sd_bus_message_append(m, "{sv}", "token", "s", token);
    if (r >= 0 && method == UP_BUS_CONNECTOR_MESSAGE) {
        if (r >= 0) r = sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0) r = sd_bus_message_append_basic(m, 's', "message");
        if (r >= 0) r = sd_bus_message_open_container(m, 'v', "ay");
        if (r >= 0) r = sd_bus_message_append_array(m, 'y', body, body_size);
        if (r >= 0) r = sd_bus_message_close_container(m);
        if (r >= 0) r = sd_bus_message_close_container(m);
        if (r >= 0) r = sd_bus_message_append(m, "{sv}", "id", "s", id);
    }
    if (r >= 0 && method == UP_BUS_CONNECTOR_NEW_ENDPOINT) r = sd_bus_message_append(m, "{sv}", "endpoint", "s", endpoint);
    if (r >= 0) r = sd_bus_message_close_container(m);
    return r;
}

int up_bus_call_connector(up_bus *self, uint64_t request, const char *service, int version, int method,
                          const char *token, const uint8_t *body, size_t body_size, const char *id,
                          const char *endpoint, uint64_t timeout_usec, char *error, size_t error_size) {
    const char *member = method == UP_BUS_CONNECTOR_MESSAGE        ? "Message"
                         : method == UP_BUS_CONNECTOR_NEW_ENDPOINT ? "NewEndpoint"
                                                                   : "Unregistered";
    sd_bus_message *m = NULL;
    sd_bus_slot *slot = NULL;
    pending_call *pending = calloc(1, sizeof *pending);
    if (!pending) return up_bus_fail(-ENOMEM, NULL, error, error_size);
    *pending = (pending_call){.self = self, .request = request,
                              .acknowledges = version == 2 && method == UP_BUS_CONNECTOR_MESSAGE};
    int r = sd_bus_message_new_method_call(self->bus, &m, service, UP_CONNECTOR_PATH,
                                           version == 1 ? UP_CONNECTOR1 : UP_CONNECTOR2, member);
    if (r >= 0) r = (version == 1 ? append_v1 : append_v2)(m, method, token, body, body_size, id, endpoint);
    if (r >= 0) r = sd_bus_call_async(self->bus, &slot, m, on_connector_reply, pending, timeout_usec);
    if (r < 0) {
        free(pending);
    } else {
        // From here the slot owns `pending`; a floating slot lives until the reply (or the bus) is gone.
        sd_bus_slot_set_destroy_callback(slot, free);
        r = sd_bus_slot_set_floating(slot, 1);
        sd_bus_slot_unref(slot);
    }
    sd_bus_message_unref(m);
    return r < 0 ? up_bus_fail(r, NULL, error, error_size) : 0;
}
