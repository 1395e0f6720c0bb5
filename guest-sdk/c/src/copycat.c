/*
 * copycat.c: the world-neutral part of the C SDK: errors, configs,
 * grants. Batches: batch.c (schemas, builder, writer), view.c (views,
 * reader). See include/copycat.h for the API.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* Memory and strings                                                   */
/* ------------------------------------------------------------------ */

void *cc__xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

void *cc__xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) abort();
    return p;
}

char *cc__strndup(const uint8_t *ptr, size_t len) {
    char *s = cc__xmalloc(len + 1);
    if (len) memcpy(s, ptr, len);
    s[len] = '\0';
    return s;
}

/* Length of the valid UTF-8 sequence starting at s[i] (of n bytes), or 0. */
static size_t utf8_seq(const uint8_t *s, size_t i, size_t n) {
    uint8_t c = s[i];
    size_t len;
    uint32_t min, cp;
    if (c < 0x80) return 1;
    if ((c & 0xE0) == 0xC0) { len = 2; min = 0x80; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; min = 0x800; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; min = 0x10000; cp = c & 0x07; }
    else return 0;
    if (i + len > n) return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[i + k] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

uint8_t *cc__utf8_dup(const char *str, size_t n, size_t *len) {
    *len = n;
    if (n == 0) return NULL;
    const uint8_t *s = (const uint8_t *)str;
    uint8_t *out = cc__xmalloc(n);
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq(s, i, n);
        if (k == 0) {
            out[i++] = '?';
        } else {
            memcpy(out + i, s + i, k);
            i += k;
        }
    }
    return out;
}

char *cc__vformat(const char *fmt, va_list ap) {
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0) n = 0;
    char *s = cc__xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *cc__format(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = cc__vformat(fmt, ap);
    va_end(ap);
    return s;
}

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

static char *error_message;

static cc_status set_error(cc_status kind, const char *fmt, va_list ap) {
    char *message = cc__vformat(fmt, ap); /* first: the arguments may use the old message */
    free(error_message);
    error_message = message;
    return kind;
}

#define DEFINE_ERROR(fn, kind)                        \
    cc_status fn(const char *fmt, ...) {              \
        va_list ap;                                   \
        va_start(ap, fmt);                            \
        cc_status s = set_error(kind, fmt, ap);       \
        va_end(ap);                                   \
        return s;                                     \
    }

DEFINE_ERROR(cc_error_config, CC_ERR_CONFIG)
DEFINE_ERROR(cc_error_retriable, CC_ERR_RETRIABLE)
DEFINE_ERROR(cc_error_fatal, CC_ERR_FATAL)

cc_status cc_error(cc_status kind, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cc_status s = set_error(kind, fmt, ap);
    va_end(ap);
    return s;
}

uint32_t cc__error_record_index;

cc_status cc_error_record(uint32_t index, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    set_error(CC_ERR_RECORD, fmt, ap);
    va_end(ap);
    cc__error_record_index = index;
    return CC_ERR_RECORD;
}

const char *cc_error_message(void) {
    return error_message ? error_message : "";
}

const char *cc__error_take_message(void) {
    return error_message && *error_message ? error_message : "(the connector gave no message)";
}

void cc__error_clear(void) {
    free(error_message);
    error_message = NULL;
}

/* ------------------------------------------------------------------ */
/* Configs                                                              */
/* ------------------------------------------------------------------ */

const char *cc_config_get(const cc_config *config, const char *key) {
    for (size_t i = 0; i < config->len; i++)
        if (strcmp(config->entries[i].key, key) == 0) return config->entries[i].value;
    return NULL;
}

static bool blank(const char *s) {
    while (*s && isspace((unsigned char)*s)) s++;
    return *s == '\0';
}

cc_status cc_config_require(const cc_config *config, const char *key, const char **out) {
    const char *v = cc_config_get(config, key);
    *out = NULL;
    if (!v) return cc_error_config("config '%s' is required but is not set", key);
    if (blank(v)) return cc_error_config("config '%s' is required but is empty", key);
    *out = v;
    return CC_OK;
}

/* Parse one decimal integer from [s, end) after trimming; false if invalid. */
static bool parse_int64(const char *s, const char *end, int64_t *out) {
    while (s < end && isspace((unsigned char)*s)) s++;
    while (end > s && isspace((unsigned char)end[-1])) end--;
    if (s == end) return false;
    bool neg = false;
    if (*s == '+' || *s == '-') {
        neg = *s == '-';
        if (++s == end) return false;
    }
    uint64_t v = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9') return false;
        uint64_t d = (uint64_t)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1) return false;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX) return false;
        *out = (int64_t)v;
    }
    return true;
}

static cc_status range_error(const char *key, const char *value, int64_t min, int64_t max) {
    if (max == INT64_MAX)
        return cc_error_config("config '%s': invalid value '%s': expected an integer >= %" PRId64, key, value, min);
    return cc_error_config("config '%s': invalid value '%s': expected an integer from %" PRId64 " to %" PRId64, key,
                           value, min, max);
}

cc_status cc_config_int64(const cc_config *config, const char *key, int64_t def, int64_t min, int64_t max,
                          int64_t *out) {
    const char *v = cc_config_get(config, key);
    *out = def;
    if (!v || blank(v)) return CC_OK;
    int64_t n;
    if (!parse_int64(v, v + strlen(v), &n) || n < min || n > max) return range_error(key, v, min, max);
    *out = n;
    return CC_OK;
}

cc_status cc_config_bool(const cc_config *config, const char *key, bool def, bool *out) {
    const char *v = cc_config_get(config, key);
    *out = def;
    if (!v || blank(v)) return CC_OK;
    while (isspace((unsigned char)*v)) v++;
    size_t n = strlen(v);
    while (n && isspace((unsigned char)v[n - 1])) n--;
    if (n == 4 && strncasecmp(v, "true", 4) == 0) *out = true;
    else if (n == 5 && strncasecmp(v, "false", 5) == 0) *out = false;
    else return cc_error_config("config '%s': invalid value '%s': expected true or false", key, v);
    return CC_OK;
}

cc_status cc_config_int64_list(const cc_config *config, const char *key, int64_t min, int64_t max, int64_t **out,
                               size_t *len) {
    const char *v = cc_config_get(config, key);
    *out = NULL;
    *len = 0;
    if (!v) return CC_OK;
    int64_t *items = NULL;
    size_t n = 0, cap = 0;
    for (const char *p = v;;) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        const char *q = p;
        while (q < end && isspace((unsigned char)*q)) q++;
        if (q < end) { /* not an empty item */
            int64_t x;
            if (!parse_int64(p, end, &x) || x < min || x > max) {
                free(items);
                return cc_error_config("config '%s': invalid item '%.*s' in '%s': expected integers from %" PRId64
                                       " to %" PRId64,
                                       key, (int)(end - p), p, v, min, max);
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 8;
                items = cc__xrealloc(items, cap * sizeof *items);
            }
            items[n++] = x;
        }
        if (!comma) break;
        p = comma + 1;
    }
    *out = items;
    *len = n;
    return CC_OK;
}

void cc__config_push_owned(cc_config *config, char *key, char *value) {
    if (config->len == config->cap) {
        config->cap = config->cap ? 2 * config->cap : 8;
        config->entries = cc__xrealloc(config->entries, config->cap * sizeof *config->entries);
    }
    config->entries[config->len].key = key;
    config->entries[config->len].value = value;
    config->len++;
}

void cc_config_set(cc_config *config, const char *key, const char *value) {
    for (size_t i = 0; i < config->len; i++) {
        if (strcmp(config->entries[i].key, key) == 0) {
            free(config->entries[i].value);
            config->entries[i].value = cc__strndup((const uint8_t *)value, strlen(value));
            return;
        }
    }
    cc__config_push_owned(config, cc__strndup((const uint8_t *)key, strlen(key)),
                          cc__strndup((const uint8_t *)value, strlen(value)));
}

void cc_config_remove(cc_config *config, const char *key) {
    for (size_t i = 0; i < config->len; i++) {
        if (strcmp(config->entries[i].key, key) == 0) {
            free(config->entries[i].key);
            free(config->entries[i].value);
            memmove(&config->entries[i], &config->entries[i + 1], (config->len - i - 1) * sizeof *config->entries);
            config->len--;
            return;
        }
    }
}

void cc_config_copy(cc_config *dst, const cc_config *src) {
    dst->entries = NULL;
    dst->len = dst->cap = 0;
    for (size_t i = 0; i < src->len; i++)
        cc__config_push_owned(dst, cc__strndup((const uint8_t *)src->entries[i].key, strlen(src->entries[i].key)),
                              cc__strndup((const uint8_t *)src->entries[i].value, strlen(src->entries[i].value)));
}

void cc_config_free(cc_config *config) {
    for (size_t i = 0; i < config->len; i++) {
        free(config->entries[i].key);
        free(config->entries[i].value);
    }
    free(config->entries);
    config->entries = NULL;
    config->len = config->cap = 0;
}

cc_config *cc_config_list_add(cc_config_list *list, const cc_config *config) {
    if (list->len == list->cap) {
        list->cap = list->cap ? 2 * list->cap : 4;
        list->items = cc__xrealloc(list->items, list->cap * sizeof *list->items);
    }
    cc_config *c = &list->items[list->len++];
    cc_config_copy(c, config);
    return c;
}

/* ------------------------------------------------------------------ */
/* Grants                                                               */
/* ------------------------------------------------------------------ */

bool cc_fs_granted(const char *path) {
    /* A granted directory is visible, and so is everything under it;
     * nothing above or beside the grants is. So `path` is granted exactly
     * when it or one of its ancestors is visible. */
    size_t n = strlen(path);
    char *p = cc__strndup((const uint8_t *)path, n);
    bool granted = false;
    struct stat st;
    while (n > 0) {
        if (stat(p, &st) == 0) {
            granted = true;
            break;
        }
        while (n > 0 && p[n - 1] != '/') n--; /* drop the last component */
        while (n > 1 && p[n - 1] == '/') n--; /* and the slashes before it */
        if (n == 0) break;
        p[n] = '\0';
        if (n == 1 && p[0] == '/') {
            granted = stat(p, &st) == 0;
            break;
        }
    }
    free(p);
    return granted;
}
