/*
 * internal.h: what the world-neutral part of the C SDK (copycat.c) shares
 * with the world glue (source.c, sink.c). Not part of the public API.
 */
#ifndef COPYCAT_INTERNAL_H
#define COPYCAT_INTERNAL_H

#include "copycat.h"

#include <stdarg.h>

/* malloc that never returns NULL: out of memory traps (abort), since there
 * is nothing sensible a connector could do about it. */
void *cc__xmalloc(size_t n);
void *cc__xrealloc(void *p, size_t n);

/* A malloc'ed, NUL-terminated copy of `len` bytes. */
char *cc__strndup(const uint8_t *ptr, size_t len);

/* A malloc'ed copy of `s` that is valid UTF-8 (invalid bytes become '?'):
 * strings crossing into the host must be UTF-8 or the call traps. *len gets
 * the length; the result is NULL when it is 0 (an empty WIT string owns no
 * memory). */
uint8_t *cc__utf8_dup(const char *s, size_t n, size_t *len);

/* vasprintf, never NULL. */
char *cc__vformat(const char *fmt, va_list ap);

/* The latest error: its message (never NULL) and clearing it before each
 * callback. */
const char *cc__error_take_message(void);
void cc__error_clear(void);

/* Append a pair to a config, taking ownership of both malloc'ed strings. */
void cc__config_push_owned(cc_config *config, char *key, char *value);

#endif
