// A thin shim over sd-bus for polkit's CheckAuthorization on the system bus, typed, because sd-bus builds messages
// through variadic functions Swift cannot call. Each call opens its own bus connection: a check is rare, and it
// blocks while the user types, so it must not hold a connection others wait on.
#ifndef PUSHAGENT_POLKIT_AUTHORITY_H
#define PUSHAGENT_POLKIT_AUTHORITY_H

#include <stddef.h>
#include <stdint.h>

// 1 when the system bus has org.freedesktop.PolicyKit1 or can start it, 0 when it cannot, a negative errno when the
// system bus cannot be reached.
int polkit_authority_reachable(void);

// org.freedesktop.PolicyKit1.Authority.CheckAuthorization for a unix-process subject, with user interaction allowed
// when `allow_interaction` is non-zero. `details` holds key, value pairs flattened (2 * detail_count strings). Waits up to timeout_usec for the answer;
// on a timeout the check is cancelled (the agent's dialog closes) and -ETIMEDOUT returned. On success sets
// *authorized and *challenge and *details_out to the reply's details, key, value pairs flattened and
// NULL-terminated, each string and the array freed with free(). On failure returns a negative errno and writes the
// bus's error name and message into `error`.
int polkit_check_authorization(uint32_t pid, uint64_t start_time, int32_t uid, const char *action_id,
                               const char *const *details, size_t detail_count, int allow_interaction,
                               const char *cancellation_id,
                               uint64_t timeout_usec, int *authorized, int *challenge, char ***details_out,
                               char *error, size_t error_size);

#endif
