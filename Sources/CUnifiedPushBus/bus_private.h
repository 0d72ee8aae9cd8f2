// What the shim's files share; not part of the Swift-facing header.
#ifndef PUSHAGENT_UNIFIEDPUSH_BUS_PRIVATE_H
#define PUSHAGENT_UNIFIEDPUSH_BUS_PRIVATE_H

#include "unifiedpush_bus.h"

#include <systemd/sd-bus.h>

#define UP_DISTRIBUTOR_PATH "/org/unifiedpush/Distributor"
#define UP_DISTRIBUTOR1 "org.unifiedpush.Distributor1"
#define UP_DISTRIBUTOR2 "org.unifiedpush.Distributor2"
#define UP_CONNECTOR_PATH "/org/unifiedpush/Connector"
#define UP_CONNECTOR1 "org.unifiedpush.Connector1"
#define UP_CONNECTOR2 "org.unifiedpush.Connector2"

struct up_bus {
    sd_bus *bus;
    sd_bus_slot *object_slot;
    up_bus_call_fn on_call;
    up_bus_reply_fn on_reply;
    void *context;
};

// Serves UP_DISTRIBUTOR_PATH (distributor_object.c).
int up_bus_add_distributor_object(up_bus *self);

// Reads an a{sv} whose fields of interest are strings: values[i] gets the string under keys[i] (NULL when absent);
// other keys are skipped, as the spec wants of fields it does not know. A key of interest holding another type, or
// given twice, is an error described in `problem` (-EINVAL). Other negative values: the message is malformed.
int up_bus_read_string_fields(sd_bus_message *m, const char *const *keys, const char **values, size_t count,
                              char *problem, size_t problem_size);

// Writes the error's text (else strerror) to `error`; returns a negative errno.
int up_bus_fail(int r, const sd_bus_error *e, char *error, size_t size);

#endif
