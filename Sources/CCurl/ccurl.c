#include "ccurl.h"

#include <pthread.h>

static pthread_once_t global_init_once = PTHREAD_ONCE_INIT;
static CURLcode global_init_result = CURLE_FAILED_INIT;

static void global_init(void) {
    global_init_result = curl_global_init(CURL_GLOBAL_DEFAULT);
}

CURLcode ccurl_global_init(void) {
    pthread_once(&global_init_once, global_init);
    return global_init_result;
}

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_setopt_write_callback(CURL *handle, ccurl_data_callback callback, void *userdata) {
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
    return rc != CURLE_OK ? rc : curl_easy_setopt(handle, CURLOPT_WRITEDATA, userdata);
}

CURLcode ccurl_setopt_header_callback(CURL *handle, ccurl_data_callback callback, void *userdata) {
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
    return rc != CURLE_OK ? rc : curl_easy_setopt(handle, CURLOPT_HEADERDATA, userdata);
}

CURLcode ccurl_setopt_post_body(CURL *handle, const void *data, curl_off_t size) {
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, size);
    return rc != CURLE_OK ? rc : curl_easy_setopt(handle, CURLOPT_COPYPOSTFIELDS, size > 0 ? data : "");
}

CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
