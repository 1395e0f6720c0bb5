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

/* asprintf, never NULL. */
char *cc__format(const char *fmt, ...) CC_PRINTF(1, 2);

/* The deepest nesting of values and schemas (batch.wit). */
#define CC__MAX_DEPTH 100

/* The schema table builders write to (cc_schema_*) and cc_schema_get()
 * reads: a source's own nodes, or a transform's input nodes (the first
 * `borrowed`, pointing into the input batch) and the nodes it added. */
typedef struct {
    cc_schema_node *nodes;
    size_t len, cap, borrowed;
} cc__table;
extern cc__table cc__schemas;
/* Make the table `nodes` (borrowed; not freed), dropping added nodes. */
void cc__schemas_borrow(const cc_schema_node *nodes, size_t len);
/* Drop every node. */
void cc__schemas_reset(void);
const char *cc__type_name(int type);

/* Batches. */
#define CC__BATCH_SOURCE 0
#define CC__BATCH_TRANSFORM 1
void cc__batch_init(cc_batch *b, int kind, size_t records, size_t bytes);
/* Close the open field (the batch is then complete, or has an error). */
void cc__batch_finish(cc_batch *b);
/* Free what the batch still owns (the glue NULLs what it handed over). */
void cc__batch_free(cc_batch *b);

/* Views: the columns of a batch from the host, checked by cc__view_init. */
struct cc_view {
    const uint8_t *data;
    size_t data_len;
    size_t n;
    const int32_t *key_lengths, *value_lengths;
    const cc_bytes *topics;
    size_t ntopics;
    const uint32_t *topic_indices;
    const int32_t *partitions;
    const int64_t *offsets, *timestamps;
    const uint32_t *header_counts, *header_key_lengths;
    const int32_t *header_value_lengths;
    size_t nh;
    const int32_t *key_schemas, *value_schemas, *header_schemas;
    cc_schemas schemas;
    /* computed: where each record's key starts, its first header */
    size_t *starts;
    size_t *first_header;
    size_t *header_starts;
};
/* Check the columns (set by the glue) against each other and the data,
 * and index the records. CC_OK, or CC_ERR_FATAL naming what is wrong. */
cc_status cc__view_init(cc_view *v);
void cc__view_free(cc_view *v);

/* The record index of the latest cc_error_record(). */
extern uint32_t cc__error_record_index;

/* The latest error: its message (never NULL) and clearing it before each
 * callback. */
const char *cc__error_take_message(void);
void cc__error_clear(void);

/* Append a pair to a config, taking ownership of both malloc'ed strings. */
void cc__config_push_owned(cc_config *config, char *key, char *value);

#endif
