#ifndef CCURL_H
#define CCURL_H

#include <curl/curl.h>

// Swift cannot call C variadic functions, so each curl_easy_setopt / curl_easy_getinfo
// argument type gets its own typed entry point.

// Thread-safe, runs curl_global_init at most once per process.
CURLcode ccurl_global_init(void);

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);

// Signature shared by CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *userdata);

// Sets CURLOPT_WRITEFUNCTION and CURLOPT_WRITEDATA together.
CURLcode ccurl_setopt_write_callback(CURL *handle, ccurl_data_callback callback, void *userdata);
// Sets CURLOPT_HEADERFUNCTION and CURLOPT_HEADERDATA together.
CURLcode ccurl_setopt_header_callback(CURL *handle, ccurl_data_callback callback, void *userdata);

// Sets CURLOPT_POSTFIELDSIZE_LARGE then CURLOPT_COPYPOSTFIELDS (curl keeps its own copy).
// An empty body is sent as such instead of falling back to reading stdin.
CURLcode ccurl_setopt_post_body(CURL *handle, const void *data, curl_off_t size);

CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value);

#endif
