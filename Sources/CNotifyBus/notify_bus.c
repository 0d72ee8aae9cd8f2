#include "notify_bus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define DEST "org.freedesktop.Notifications"
#define PATH "/org/freedesktop/Notifications"
#define IFACE "org.freedesktop.Notifications"

struct notify_bus {
    sd_bus *bus;
    sd_bus_slot *slot;
    sd_bus_slot *owner_slot;
    // The unique name of the server owning DEST now (NULL: none). Notification ids are that server's, and only it
    // may press buttons: a signal from any other connection on the bus is dropped.
    char *owner;
    notify_bus_signal_fn on_signal;
    void *context;
};

static void set_owner(notify_bus *self, const char *owner) {
    free(self->owner);
    self->owner = owner && *owner ? strdup(owner) : NULL;
}

static int on_message(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    notify_bus *self = userdata;
    const char *sender = sd_bus_message_get_sender(m);
    if (!self->owner || !sender || strcmp(sender, self->owner) != 0) return 0;
    uint32_t id = 0;
    if (sd_bus_message_is_signal(m, IFACE, "ActionInvoked")) {
        const char *action = NULL;
        if (sd_bus_message_read(m, "us", &id, &action) >= 0)
            self->on_signal(self->context, NOTIFY_BUS_ACTION_INVOKED, id, action, 0);
    } else if (sd_bus_message_is_signal(m, IFACE, "NotificationClosed")) {
        uint32_t reason = 0;
        if (sd_bus_message_read(m, "uu", &id, &reason) >= 0)
            self->on_signal(self->context, NOTIFY_BUS_NOTIFICATION_CLOSED, id, NULL, reason);
    }
    return 0;
}

static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    notify_bus *self = userdata;
    const char *name = NULL, *old_owner = NULL, *new_owner = NULL;
    if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || strcmp(name, DEST) != 0) return 0;
    set_owner(self, new_owner);
    self->on_signal(self->context, NOTIFY_BUS_SERVER_CHANGED, 0, self->owner, 0);
    return 0;
}

int notify_bus_open(notify_bus **out, notify_bus_signal_fn on_signal, void *context) {
    notify_bus *self = calloc(1, sizeof *self);
    if (!self) return -ENOMEM;
    self->on_signal = on_signal;
    self->context = context;
    int r = sd_bus_open_user(&self->bus);
    if (r >= 0)
        r = sd_bus_match_signal(self->bus, &self->slot, NULL, PATH, IFACE, NULL, on_message, self);
    if (r >= 0)
        r = sd_bus_add_match(self->bus, &self->owner_slot,
                             "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                             "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" DEST "'",
                             on_owner_changed, self);
    // After the match, so that a change from here on is seen: the server there now, if any.
    if (r >= 0) {
        sd_bus_message *reply = NULL;
        const char *owner = NULL;
        if (sd_bus_call_method(self->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "GetNameOwner", NULL, &reply, "s", DEST) >= 0 &&
            sd_bus_message_read(reply, "s", &owner) >= 0)
            set_owner(self, owner);
        sd_bus_message_unref(reply);
    }
    if (r < 0) {
        notify_bus_close(self);
        return r;
    }
    *out = self;
    return 0;
}

const char *notify_bus_server(notify_bus *self) { return self->owner; }

void notify_bus_close(notify_bus *self) {
    if (!self) return;
    sd_bus_slot_unref(self->slot);
    sd_bus_slot_unref(self->owner_slot);
    sd_bus_flush_close_unref(self->bus);
    free(self->owner);
    free(self);
}

static int fail(int r, const sd_bus_error *e, char *error, size_t size) {
    if (error && size)
        snprintf(error, size, "%s", e && e->message ? e->message : strerror(r < 0 ? -r : r));
    return r < 0 ? r : -EIO;
}

static int append_hint(sd_bus_message *m, const char *key, char type, const void *value) {
    const char contents[2] = {type, 0};
    int r = sd_bus_message_open_container(m, 'e', "sv");
    if (r >= 0) r = sd_bus_message_append_basic(m, 's', key);
    if (r >= 0) r = sd_bus_message_open_container(m, 'v', contents);
    if (r >= 0) r = sd_bus_message_append_basic(m, type, value);
    if (r >= 0) r = sd_bus_message_close_container(m);
    if (r >= 0) r = sd_bus_message_close_container(m);
    return r;
}

int notify_bus_notify(notify_bus *self, const char *app_name, uint32_t replaces_id, const char *icon,
                      const char *summary, const char *body, const char *const *actions, size_t action_count,
                      uint8_t urgency, int resident, int transient, int32_t expire_timeout_ms,
                      uint32_t *id_out, char **server_out, char *error, size_t error_size) {
    sd_bus_message *m = NULL, *reply = NULL;
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int yes = 1;
    int r = sd_bus_message_new_method_call(self->bus, &m, DEST, PATH, IFACE, "Notify");
    if (r >= 0) r = sd_bus_message_append(m, "susss", app_name, replaces_id, icon, summary, body);
    if (r >= 0) r = sd_bus_message_open_container(m, 'a', "s");
    for (size_t i = 0; r >= 0 && i < 2 * action_count; i++) r = sd_bus_message_append_basic(m, 's', actions[i]);
    if (r >= 0) r = sd_bus_message_close_container(m);
    if (r >= 0) r = sd_bus_message_open_container(m, 'a', "{sv}");
    if (r >= 0) r = append_hint(m, "urgency", 'y', &urgency);
    if (r >= 0 && resident) r = append_hint(m, "resident", 'b', &yes);
    if (r >= 0 && transient) r = append_hint(m, "transient", 'b', &yes);
    if (r >= 0) r = sd_bus_message_close_container(m);
    if (r >= 0) r = sd_bus_message_append(m, "i", expire_timeout_ms);
    if (r >= 0) r = sd_bus_call(self->bus, m, 0, &e, &reply);
    if (r >= 0) r = sd_bus_message_read(reply, "u", id_out);
    // The answering server: an activated one may answer before its NameOwnerChanged is dispatched.
    if (r >= 0) {
        const char *sender = sd_bus_message_get_sender(reply);
        *server_out = strdup(sender ? sender : "");
        if (!*server_out) r = -ENOMEM;
    }
    if (r < 0) r = fail(r, &e, error, error_size);
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    sd_bus_message_unref(m);
    return r < 0 ? r : 0;
}

int notify_bus_close_notification(notify_bus *self, const char *server, uint32_t id, char *error, size_t error_size) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = sd_bus_call_method(self->bus, server, PATH, IFACE, "CloseNotification", &e, NULL, "u", id);
    if (r < 0) r = fail(r, &e, error, error_size);
    sd_bus_error_free(&e);
    return r < 0 ? r : 0;
}

int notify_bus_capabilities(notify_bus *self, char ***out, char *error, size_t error_size) {
    sd_bus_message *reply = NULL;
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = sd_bus_call_method(self->bus, DEST, PATH, IFACE, "GetCapabilities", &e, &reply, "");
    if (r >= 0) r = sd_bus_message_read_strv(reply, out);
    if (r < 0) r = fail(r, &e, error, error_size);
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 0;
}

sd_bus *notify_bus_connection(notify_bus *self) { return self->bus; }
