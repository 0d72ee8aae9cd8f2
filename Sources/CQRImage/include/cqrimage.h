#ifndef CQRIMAGE_H
#define CQRIMAGE_H

#include <stddef.h>

// Decodes the QR codes in a PNG or JPEG file with libzbar. On success returns the number of QR codes found
// (0 if none) and, when at least one was found, a malloc'ed NUL-terminated copy of the first one's text in
// *text (the caller frees it). On failure returns -1 and writes a message into error.
int cqr_decode_file(const char *path, char **text, char *error, size_t error_length);

#endif
