#include "polkit_authority.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define DEST "org.freedesktop.PolicyKit1"
#define PATH "/org/freedesktop/PolicyKit1/Authority"
#define IFACE "org.freedesktop.PolicyKit1.Authority"
// CheckAuthorizationFlags: AllowUserInteraction.
#define ALLOW_USER_INTERACTION 1u

static int fail(int r, const sd_bus_error *e, char *error, size_t size) {
    if (error && size) {
        if (e && e->name)
            snprintf(error, size, "%s: %s", e->name, e->message ? e->message : "");
        else
            snprintf(error, size, "%s", strerror(r < 0 ? -r : EIO));
    }
    return r < 0 ? r : -EIO;
}

#define BUS_CALL(bus, method, reply, ...) \
    sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method, NULL, \
                       reply, __VA_ARGS__)

// 1 when `name` has an owner on the bus now, 0 when not.
static int name_has_owner(sd_bus *bus, const char *name) {
    sd_bus_message *reply = NULL;
    int owned = 0;
    int r = BUS_CALL(bus, "NameHasOwner", &reply, "s", name);
    if (r >= 0) r = sd_bus_message_read(reply, "b", &owned);
    sd_bus_message_unref(reply);
    return r < 0 ? r : owned;
}

// 1 when the bus can start `name`'s service on demand (D-Bus activation), 0 when not.
static int name_activatable(sd_bus *bus, const char *name) {
    sd_bus_message *reply = NULL;
    const char *listed = NULL;
    int found = 0;
    int r = BUS_CALL(bus, "ListActivatableNames", &reply, NULL);
    if (r >= 0) r = sd_bus_message_enter_container(reply, 'a', "s");
    while (r >= 0 && !found && (r = sd_bus_message_read_basic(reply, 's', &listed)) > 0) found = strcmp(listed, name) == 0;
    sd_bus_message_unref(reply);
    return r < 0 ? r : found;
}

int polkit_authority_reachable(void) {
    sd_bus *bus = NULL;
    int r = sd_bus_open_system(&bus);
    if (r >= 0) r = name_has_owner(bus, DEST);
    if (r == 0) r = name_activatable(bus, DEST);
    sd_bus_flush_close_unref(bus);
    return r;
}

static int append_subject(sd_bus_message *m, uint32_t pid, uint64_t start_time, int32_t uid) {
    int r = sd_bus_message_open_container(m, 'r', "sa{sv}");
    if (r >= 0) r = sd_bus_message_append(m, "s", "unix-process");
    if (r >= 0) r = sd_bus_message_append(m, "a{sv}", 3, "pid", "u", pid, "start-time", "t", start_time,
                                          "uid", "i", uid);
    if (r >= 0) r = sd_bus_message_close_container(m);
    return r;
}

static int append_details(sd_bus_message *m, const char *const *details, size_t count) {
    int r = sd_bus_message_open_container(m, 'a', "{ss}");
    for (size_t i = 0; r >= 0 && i < count; i++) r = sd_bus_message_append(m, "{ss}", details[2 * i], details[2 * i + 1]);
    if (r >= 0) r = sd_bus_message_close_container(m);
    return r;
}

static void free_strings(char **strings) {
    for (char **s = strings; s && *s; s++) free(*s);
    free(strings);
}

// Reads the a{ss} of the reply into a NULL-terminated flat array.
static int read_details(sd_bus_message *reply, char ***out) {
    size_t count = 0, capacity = 8;
    char **strings = calloc(capacity + 1, sizeof *strings);
    if (!strings) return -ENOMEM;
    int r = sd_bus_message_enter_container(reply, 'a', "{ss}");
    const char *key = NULL, *value = NULL;
    while (r >= 0 && (r = sd_bus_message_read(reply, "{ss}", &key, &value)) > 0) {
        if (count + 2 > capacity) {
            char **grown = realloc(strings, (2 * capacity + 1) * sizeof *strings);
            if (!grown) { r = -ENOMEM; break; }
            strings = grown;
            capacity *= 2;
        }
        strings[count] = strdup(key);
        strings[count + 1] = strdup(value);
        strings[count + 2] = NULL;
        if (!strings[count] || !strings[count + 1]) { count += 2; r = -ENOMEM; break; }
        count += 2;
    }
    if (r >= 0) r = sd_bus_message_exit_container(reply);
    if (r < 0) { free_strings(strings); return r; }
    *out = strings;
    return 0;
}

int polkit_check_authorization(uint32_t pid, uint64_t start_time, int32_t uid, const char *action_id,
                               const char *const *details, size_t detail_count, int allow_interaction,
                               const char *cancellation_id,
                               uint64_t timeout_usec, int *authorized, int *challenge, char ***details_out,
                               char *error, size_t error_size) {
    sd_bus *bus = NULL;
    sd_bus_message *m = NULL, *reply = NULL;
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = sd_bus_open_system(&bus);
    if (r >= 0) r = sd_bus_message_new_method_call(bus, &m, DEST, PATH, IFACE, "CheckAuthorization");
    if (r >= 0) r = append_subject(m, pid, start_time, uid);
    if (r >= 0) r = sd_bus_message_append(m, "s", action_id);
    if (r >= 0) r = append_details(m, details, detail_count);
    if (r >= 0) r = sd_bus_message_append(m, "us", allow_interaction ? ALLOW_USER_INTERACTION : 0u, cancellation_id);
    if (r >= 0) {
        r = sd_bus_call(bus, m, timeout_usec, &e, &reply);
        // Nobody waits for the answer any more: close the dialog instead of leaving it to a user who may still type.
        if (r == -ETIMEDOUT)
            sd_bus_call_method(bus, DEST, PATH, IFACE, "CancelCheckAuthorization", NULL, NULL, "s", cancellation_id);
    }
    int is_authorized = 0, is_challenge = 0;
    if (r >= 0) r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
    if (r >= 0) r = sd_bus_message_read(reply, "bb", &is_authorized, &is_challenge);
    if (r >= 0) r = read_details(reply, details_out);
    if (r >= 0) {
        *authorized = is_authorized;
        *challenge = is_challenge;
    } else {
        r = fail(r, &e, error, error_size);
    }
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    sd_bus_message_unref(m);
    sd_bus_flush_close_unref(bus);
    return r < 0 ? r : 0;
}
