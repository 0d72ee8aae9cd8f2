#include "bus_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DBUS_NAME "org.freedesktop.DBus"
#define DBUS_PATH "/org/freedesktop/DBus"

int up_bus_fail(int r, const sd_bus_error *e, char *error, size_t size) {
    if (error && size) {
        if (e && e->name && e->message) snprintf(error, size, "%s: %s", e->name, e->message);
        else snprintf(error, size, "%s", strerror(r < 0 ? -r : r));
    }
    return r < 0 ? r : -EIO;
}

static int connect_bus(sd_bus **out, const char *address) {
    if (!address) return sd_bus_open_user(out);
    sd_bus *bus = NULL;
    int r = sd_bus_new(&bus);
    if (r >= 0) r = sd_bus_set_address(bus, address);
    if (r >= 0) r = sd_bus_set_bus_client(bus, 1);
    if (r >= 0) r = sd_bus_start(bus);
    if (r < 0) {
        sd_bus_unref(bus);
        return r;
    }
    *out = bus;
    return 0;
}

// Who owns `name`, for the error that says the name is taken: its unique name and, when the daemon tells, its pid.
static void describe_owner(sd_bus *bus, const char *name, char *error, size_t size) {
    sd_bus_message *reply = NULL;
    const char *owner = NULL;
    uint32_t pid = 0;
    if (sd_bus_call_method(bus, DBUS_NAME, DBUS_PATH, DBUS_NAME, "GetNameOwner", NULL, &reply, "s", name) < 0 ||
        sd_bus_message_read(reply, "s", &owner) < 0) {
        snprintf(error, size, "another connection");
        sd_bus_message_unref(reply);
        return;
    }
    sd_bus_message *pid_reply = NULL;
    if (sd_bus_call_method(bus, DBUS_NAME, DBUS_PATH, DBUS_NAME, "GetConnectionUnixProcessID", NULL, &pid_reply, "s",
                           owner) >= 0 &&
        sd_bus_message_read(pid_reply, "u", &pid) >= 0)
        snprintf(error, size, "connection %s, pid %u", owner, pid);
    else
        snprintf(error, size, "connection %s", owner);
    sd_bus_message_unref(pid_reply);
    sd_bus_message_unref(reply);
}

int up_bus_open(up_bus **out, const char *address, const char *name, up_bus_call_fn on_call, up_bus_reply_fn on_reply,
                void *context, char *error, size_t error_size) {
    up_bus *self = calloc(1, sizeof *self);
    if (!self) return -ENOMEM;
    self->on_call = on_call;
    self->on_reply = on_reply;
    self->context = context;
    int r = connect_bus(&self->bus, address);
    if (r < 0) {
        snprintf(error, error_size, "%s", strerror(-r));
        up_bus_close(self);
        return r;
    }
    // The object first, so that a call arriving as soon as the name is ours is served.
    r = up_bus_add_distributor_object(self);
    // Not queued (sd-bus's default without SD_BUS_NAME_QUEUE): a distributor waiting in line would look registered
    // to nobody and answer nobody.
    if (r >= 0) r = sd_bus_request_name(self->bus, name, 0);
    if (r == -EEXIST) describe_owner(self->bus, name, error, error_size);
    else if (r < 0) snprintf(error, error_size, "%s", strerror(-r));
    if (r < 0) {
        up_bus_close(self);
        return r;
    }
    *out = self;
    return 0;
}

void up_bus_close(up_bus *self) {
    if (!self) return;
    sd_bus_slot_unref(self->object_slot);
    sd_bus_flush_close_unref(self->bus);
    free(self);
}

sd_bus *up_bus_connection(up_bus *self) { return self->bus; }

int up_bus_name_has_owner(up_bus *self, const char *name, int *has_owner, char *error, size_t error_size) {
    sd_bus_message *reply = NULL;
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = sd_bus_call_method(self->bus, DBUS_NAME, DBUS_PATH, DBUS_NAME, "NameHasOwner", &e, &reply, "s", name);
    if (r >= 0) r = sd_bus_message_read(reply, "b", has_owner);
    if (r < 0) r = up_bus_fail(r, &e, error, error_size);
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 0;
}

int up_bus_is_activatable(up_bus *self, const char *name, int *activatable, char *error, size_t error_size) {
    sd_bus_message *reply = NULL;
    sd_bus_error e = SD_BUS_ERROR_NULL;
    char **names = NULL;
    *activatable = 0;
    int r = sd_bus_call_method(self->bus, DBUS_NAME, DBUS_PATH, DBUS_NAME, "ListActivatableNames", &e, &reply, "");
    if (r >= 0) r = sd_bus_message_read_strv(reply, &names);
    for (char **each = names; each && *each; each++) {
        if (strcmp(*each, name) == 0) *activatable = 1;
        free(*each);
    }
    free(names);
    if (r < 0) r = up_bus_fail(r, &e, error, error_size);
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 0;
}
