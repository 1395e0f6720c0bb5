/*
 * batch.c: the schema table, the batch builder and the value writer
 * (wit/connector@0.3.0/batch.wit). World-neutral: the unit test
 * (guest-sdk/c/test/) compiles it natively.
 *
 * The builder writes straight into the buffers the batch crosses the
 * boundary in: `data` and the integer columns are malloc'ed arrays the glue
 * hands to the canonical ABI as they are (the generated post-return
 * function frees them), so nothing is copied after a record is written.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The schema table                                                     */
/* ------------------------------------------------------------------ */

cc__table cc__schemas;

static const char *type_name(int t) {
    static const char *names[] = {"int8",   "int16",   "int32",  "int64", "float32", "float64",
                                  "boolean", "string", "bytes",  "array", "map",     "struct"};
    return t >= 0 && t <= CC_STRUCT ? names[t] : "?";
}

const char *cc__type_name(int type) {
    return type_name(type);
}

const cc_schema_node *cc_schema_get(cc_schema schema) {
    if (schema < 0 || (size_t)schema >= cc__schemas.len) return NULL;
    return &cc__schemas.nodes[schema];
}

static cc_bytes bytes_dup(const uint8_t *p, size_t n) {
    cc_bytes b = {NULL, n};
    if (n) {
        uint8_t *q = cc__xmalloc(n);
        memcpy(q, p, n);
        b.ptr = q;
    }
    return b;
}

static bool bytes_eq(cc_bytes a, cc_bytes b) {
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

static bool node_eq(const cc_schema_node *a, const cc_schema_node *b) {
    if (a->type != b->type || a->optional != b->optional || a->has_name != b->has_name ||
        a->has_version != b->has_version || a->has_doc != b->has_doc || a->has_default != b->has_default ||
        a->parameters_len != b->parameters_len || a->children_len != b->children_len)
        return false;
    if (a->has_name && !bytes_eq(a->name, b->name)) return false;
    if (a->has_version && a->version != b->version) return false;
    if (a->has_doc && !bytes_eq(a->doc, b->doc)) return false;
    if (a->has_default && !bytes_eq(a->default_value, b->default_value)) return false;
    for (size_t i = 0; i < 2 * a->parameters_len; i++)
        if (!bytes_eq(a->parameters[i], b->parameters[i])) return false;
    for (size_t i = 0; i < a->children_len; i++) {
        if (a->children[i] != b->children[i]) return false;
        if (a->type == CC_STRUCT && !bytes_eq(a->field_names[i], b->field_names[i])) return false;
    }
    return true;
}

static void node_free(cc_schema_node *n) {
    free((void *)n->name.ptr);
    free((void *)n->doc.ptr);
    for (size_t i = 0; i < 2 * n->parameters_len; i++) free((void *)n->parameters[i].ptr);
    free((void *)n->parameters);
    free((void *)n->default_value.ptr);
    free((void *)n->children);
    if (n->field_names)
        for (size_t i = 0; i < n->children_len; i++) free((void *)n->field_names[i].ptr);
    free((void *)n->field_names);
}

void cc__schemas_borrow(const cc_schema_node *nodes, size_t len) {
    cc__schemas_reset();
    if (len > cc__schemas.cap) {
        cc__schemas.cap = len;
        cc__schemas.nodes = cc__xrealloc(cc__schemas.nodes, len * sizeof *cc__schemas.nodes);
    }
    if (len) memcpy(cc__schemas.nodes, nodes, len * sizeof *nodes);
    cc__schemas.len = cc__schemas.borrowed = len;
}

void cc__schemas_reset(void) {
    for (size_t i = cc__schemas.borrowed; i < cc__schemas.len; i++) node_free(&cc__schemas.nodes[i]);
    cc__schemas.len = cc__schemas.borrowed = 0;
}

static cc_schema invalid(const char *fmt, ...) CC_PRINTF(1, 2);
static cc_schema invalid(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *m = cc__vformat(fmt, ap);
    va_end(ap);
    cc_error_fatal("invalid schema: %s", m);
    free(m);
    return CC_SCHEMA_INVALID;
}

cc_schema cc_schema_build(const cc_schema_spec *s) {
    if ((int)s->type < 0 || s->type > CC_STRUCT) return invalid("type %d", (int)s->type);
    size_t want = s->type == CC_ARRAY ? 1 : s->type == CC_MAP ? 2 : s->type == CC_STRUCT ? s->children_len : 0;
    if (s->children_len != want)
        return invalid("a %s schema takes %zu child schemas, not %zu", type_name(s->type), want, s->children_len);
    for (size_t i = 0; i < s->children_len; i++) {
        if (s->children[i] < 0 || (size_t)s->children[i] >= cc__schemas.len)
            return invalid("child %zu of a %s schema is not a schema (%" PRId32 ")", i, type_name(s->type),
                           s->children[i]);
        if (s->type == CC_STRUCT && (!s->field_names || !s->field_names[i]))
            return invalid("struct field %zu has no name", i);
    }
    if (s->parameters_len && !s->parameters) return invalid("parameters missing");
    /* Build the node with borrowed pointers, look for an equal one, then
     * copy. */
    cc_bytes params[2 * (s->parameters_len ? s->parameters_len : 1)];
    uint32_t children[s->children_len ? s->children_len : 1];
    cc_bytes names[s->children_len ? s->children_len : 1];
    for (size_t i = 0; i < 2 * s->parameters_len; i++) params[i] = cc_str(s->parameters[i]);
    for (size_t i = 0; i < s->children_len; i++) {
        children[i] = (uint32_t)s->children[i];
        names[i] = s->type == CC_STRUCT ? cc_str(s->field_names[i]) : (cc_bytes){NULL, 0};
    }
    cc_schema_node n = {
        .type = s->type,
        .optional = s->optional,
        .has_name = s->name != NULL,
        .name = cc_str(s->name),
        .has_version = s->has_version,
        .version = s->has_version ? s->version : 0,
        .has_doc = s->doc != NULL,
        .doc = cc_str(s->doc),
        .parameters = params,
        .parameters_len = s->parameters_len,
        .has_default = s->has_default,
        .default_value = {s->has_default ? s->default_value : NULL, s->has_default ? s->default_len : 0},
        .children = children,
        .children_len = s->children_len,
        .field_names = s->type == CC_STRUCT ? names : NULL,
    };
    for (size_t i = 0; i < cc__schemas.len; i++)
        if (node_eq(&cc__schemas.nodes[i], &n)) return (cc_schema)i;
    if (cc__schemas.len >= INT32_MAX) return invalid("too many schema nodes");
    cc_schema_node c = n;
    c.name = bytes_dup(n.name.ptr, n.name.len);
    c.doc = bytes_dup(n.doc.ptr, n.doc.len);
    c.default_value = bytes_dup(n.default_value.ptr, n.default_value.len);
    c.parameters = NULL;
    if (n.parameters_len) {
        cc_bytes *p = cc__xmalloc(2 * n.parameters_len * sizeof *p);
        for (size_t i = 0; i < 2 * n.parameters_len; i++) p[i] = bytes_dup(params[i].ptr, params[i].len);
        c.parameters = p;
    }
    c.children = NULL;
    c.field_names = NULL;
    if (n.children_len) {
        uint32_t *ch = cc__xmalloc(n.children_len * sizeof *ch);
        memcpy(ch, children, n.children_len * sizeof *ch);
        c.children = ch;
        if (n.type == CC_STRUCT) {
            cc_bytes *f = cc__xmalloc(n.children_len * sizeof *f);
            for (size_t i = 0; i < n.children_len; i++) f[i] = bytes_dup(names[i].ptr, names[i].len);
            c.field_names = f;
        }
    }
    if (cc__schemas.len == cc__schemas.cap) {
        cc__schemas.cap = cc__schemas.cap ? 2 * cc__schemas.cap : 16;
        cc__schemas.nodes = cc__xrealloc(cc__schemas.nodes, cc__schemas.cap * sizeof *cc__schemas.nodes);
    }
    cc__schemas.nodes[cc__schemas.len] = c;
    return (cc_schema)cc__schemas.len++;
}

cc_schema cc_schema_of(cc_type type, bool optional) {
    if ((int)type < 0 || type > CC_BYTES) return invalid("cc_schema_of takes a primitive type, not %s", type_name(type));
    cc_schema_spec s = {.type = type, .optional = optional};
    return cc_schema_build(&s);
}

cc_schema cc_schema_array(cc_schema element, bool optional) {
    cc_schema_spec s = {.type = CC_ARRAY, .optional = optional, .children = &element, .children_len = 1};
    return cc_schema_build(&s);
}

cc_schema cc_schema_map(cc_schema key, cc_schema value, bool optional) {
    cc_schema kv[2] = {key, value};
    cc_schema_spec s = {.type = CC_MAP, .optional = optional, .children = kv, .children_len = 2};
    return cc_schema_build(&s);
}

cc_schema cc_schema_struct(const char *name, bool optional, const cc_field *fields, size_t len) {
    cc_schema children[len ? len : 1];
    const char *names[len ? len : 1];
    for (size_t i = 0; i < len; i++) {
        children[i] = fields[i].schema;
        names[i] = fields[i].name;
        for (size_t j = 0; j < i; j++)
            if (names[i] && names[j] && strcmp(names[i], names[j]) == 0)
                return invalid("struct %s: field '%s' twice", name ? name : "(unnamed)", names[i]);
    }
    cc_schema_spec s = {.type = CC_STRUCT,
                        .optional = optional,
                        .name = name,
                        .children = children,
                        .children_len = len,
                        .field_names = names};
    return cc_schema_build(&s);
}

static cc_schema logical(cc_type type, const char *name, bool optional, const char *const *params, size_t nparams) {
    cc_schema_spec s = {.type = type,
                        .optional = optional,
                        .name = name,
                        .has_version = true,
                        .version = 1,
                        .parameters = params,
                        .parameters_len = nparams};
    return cc_schema_build(&s);
}

cc_schema cc_schema_decimal(int32_t scale, bool optional) {
    char text[16];
    snprintf(text, sizeof text, "%" PRId32, scale);
    const char *params[2] = {"scale", text};
    return logical(CC_BYTES, CC_DECIMAL_NAME, optional, params, 1);
}

cc_schema cc_schema_date(bool optional) {
    return logical(CC_INT32, CC_DATE_NAME, optional, NULL, 0);
}

cc_schema cc_schema_time(bool optional) {
    return logical(CC_INT32, CC_TIME_NAME, optional, NULL, 0);
}

cc_schema cc_schema_timestamp(bool optional) {
    return logical(CC_INT64, CC_TIMESTAMP_NAME, optional, NULL, 0);
}

/* ------------------------------------------------------------------ */
/* The builder                                                          */
/* ------------------------------------------------------------------ */

static void fail(cc_batch *b, const char *fmt, ...) CC_PRINTF(2, 3);
static void fail(cc_batch *b, const char *fmt, ...) {
    b->raw = false;
    b->typed = false;
    if (b->error) return; /* the first mistake is the one to fix */
    va_list ap;
    va_start(ap, fmt);
    char *m = cc__vformat(fmt, ap);
    va_end(ap);
    if (b->n) {
        char *with = cc__format("record %zu of the batch: %s", b->n - 1, m);
        free(m);
        m = with;
    }
    b->error = m;
}

const char *cc_batch_error(const cc_batch *b) {
    return b->error;
}

void cc__batch_init(cc_batch *b, int kind, size_t records, size_t bytes) {
    memset(b, 0, sizeof *b);
    b->kind = (uint8_t)kind;
    cc_batch_reserve(b, records ? records : 16, bytes ? bytes : 256);
    if (kind == CC__BATCH_TRANSFORM) {
        b->topic_indices = cc__xmalloc(b->rcap * sizeof *b->topic_indices);
        b->partitions = cc__xmalloc(b->rcap * sizeof *b->partitions);
        b->timestamps = cc__xmalloc(b->rcap * sizeof *b->timestamps);
        b->offsets = cc__xmalloc(b->rcap * sizeof *b->offsets);
        b->origins = cc__xmalloc(b->rcap * sizeof *b->origins);
        b->extra = true;
    }
}

void cc__batch_free(cc_batch *b) {
    free(b->data);
    free(b->key_lengths);
    free(b->value_lengths);
    free(b->key_schemas);
    free(b->value_schemas);
    free(b->topic_indices);
    free(b->partitions);
    free(b->timestamps);
    free(b->offsets);
    free(b->header_counts);
    free(b->origins);
    free(b->header_key_lengths);
    free(b->header_value_lengths);
    free(b->header_schemas);
    for (size_t i = 0; i < b->ntopics; i++) free(b->topics[i]);
    free(b->topics);
    for (size_t i = 0; i < 2 * b->npositions; i++) free(b->positions[i]);
    free(b->positions);
    free(b->error);
    memset(b, 0, sizeof *b);
}

#define GROW(ptr, cap) ((ptr) = cc__xrealloc((ptr), (cap) * sizeof *(ptr)))

static void grow_records_to(cc_batch *b, size_t cap) {
    if (cap <= b->rcap) return;
    b->rcap = cap;
    GROW(b->key_lengths, cap);
    GROW(b->value_lengths, cap);
    if (b->key_schemas) GROW(b->key_schemas, cap);
    if (b->value_schemas) GROW(b->value_schemas, cap);
    if (b->topic_indices) GROW(b->topic_indices, cap);
    if (b->partitions) GROW(b->partitions, cap);
    if (b->timestamps) GROW(b->timestamps, cap);
    if (b->offsets) GROW(b->offsets, cap);
    if (b->header_counts) GROW(b->header_counts, cap);
    if (b->origins) GROW(b->origins, cap);
}

static void grow_data_to(cc_batch *b, size_t need) {
    if (need <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap *= 2;
    b->data = cc__xrealloc(b->data, cap);
    b->cap = cap;
}

void cc_batch_reserve(cc_batch *b, size_t records, size_t bytes) {
    if (b->n + records > b->rcap) grow_records_to(b, b->n + records);
    if (b->len + bytes > b->cap) grow_data_to(b, b->len + bytes);
}

void cc__batch_grow_records(cc_batch *b) {
    grow_records_to(b, b->rcap ? 2 * b->rcap : 16);
}

void cc__batch_append_slow(cc_batch *b, const void *ptr, size_t len) {
    if (!b->raw) {
        fail(b, "bytes appended with no raw key, value or header value open");
        return;
    }
    grow_data_to(b, b->len + len);
    if (len) memcpy(b->data + b->len, ptr, len);
    b->len += len;
}

uint8_t *cc__batch_space_slow(cc_batch *b, size_t len) {
    if (!b->raw) {
        fail(b, "bytes appended with no raw key, value or header value open");
        return NULL;
    }
    grow_data_to(b, b->len + len);
    uint8_t *p = b->data + b->len;
    b->len += len;
    return p;
}

/* A column of `n` entries of `fill`, for records before the first use. */
static int32_t *column_s32(cc_batch *b, int32_t fill) {
    b->extra = true;
    int32_t *c = cc__xmalloc(b->rcap * sizeof *c);
    for (size_t i = 0; i < b->n; i++) c[i] = fill;
    return c;
}

void cc__batch_add_columns(cc_batch *b) {
    size_t i = b->n - 1;
    if (b->key_schemas) b->key_schemas[i] = CC_RAW;
    if (b->value_schemas) b->value_schemas[i] = CC_RAW;
    if (b->topic_indices) b->topic_indices[i] = b->kind == CC__BATCH_TRANSFORM && i ? b->topic_indices[i - 1] : -1;
    if (b->partitions) b->partitions[i] = -1;
    if (b->timestamps) b->timestamps[i] = -1;
    if (b->offsets) b->offsets[i] = -1;
    if (b->header_counts) b->header_counts[i] = 0;
    if (b->origins) b->origins[i] = i ? b->origins[i - 1] : 0;
}

/* The writer's expected node for the next value, or CC_SCHEMA_INVALID. */
static void open_typed(cc_batch *b, cc_schema schema) {
    b->typed = true;
    b->any_typed = true;
    b->depth = 1;
    b->stack[0].node = schema;
    b->stack[0].kind = 0;
    b->stack[0].index = 0;
}

static bool schema_ok(cc_batch *b, cc_schema schema, const char *what) {
    if (schema == CC_RAW || schema == CC_SCHEMALESS) return true;
    if (schema >= 0 && (size_t)schema < cc__schemas.len) return true;
    fail(b, "the %s's schema %" PRId32 " is not a schema of this batch's table (%zu nodes)%s", what, schema,
         cc__schemas.len, schema == CC_SCHEMA_INVALID ? ": its builder failed" : "");
    return false;
}

void cc__batch_close_field(cc_batch *b) {
    uint8_t field = b->field;
    b->field = 0;
    b->raw = false;
    if (!field) return;
    if (b->typed) {
        b->typed = false;
        if (b->depth != 1 || b->stack[0].index != 1) {
            fail(b, "its %s is not a complete value (a container not ended, or nothing written)",
                 field == 1 ? "key" : field == 2 ? "value" : "header value");
            return;
        }
    }
    size_t len = b->len - b->field_start;
    if (len > INT32_MAX) {
        fail(b, "a key or value of %zu bytes (at most 2 GiB - 1)", len);
        return;
    }
    if (field == 1) b->key_lengths[b->n - 1] = (int32_t)len;
    else if (field == 2) b->value_lengths[b->n - 1] = (int32_t)len;
    else b->header_value_lengths[b->nh - 1] = (int32_t)len;
}

static void open_field(cc_batch *b, uint8_t field, cc_schema schema) {
    b->field = field;
    b->field_start = b->len;
    if (schema == CC_RAW) b->raw = true;
    else open_typed(b, schema);
}

void cc__batch_key_begin(cc_batch *b, cc_schema schema) {
    if (b->field) cc__batch_close_field(b);
    if (b->n == 0) return fail(b, "a key with no record: call cc_batch_add first");
    if (b->stage >= 1) return fail(b, "a key after the record's key, value or headers");
    b->stage = 1;
    if (!schema_ok(b, schema, "key")) return;
    if (schema != CC_RAW && !b->key_schemas) b->key_schemas = column_s32(b, CC_RAW);
    if (b->key_schemas) b->key_schemas[b->n - 1] = schema;
    open_field(b, 1, schema);
}

void cc__batch_value_begin(cc_batch *b, cc_schema schema) {
    if (b->field) cc__batch_close_field(b);
    if (b->n == 0) return fail(b, "a value with no record: call cc_batch_add first");
    if (b->stage >= 2) return fail(b, "a value after the record's value or headers");
    b->stage = 2;
    if (!schema_ok(b, schema, "value")) return;
    if (schema != CC_RAW && !b->value_schemas) b->value_schemas = column_s32(b, CC_RAW);
    if (b->value_schemas) b->value_schemas[b->n - 1] = schema;
    open_field(b, 2, schema);
}

static bool header_start(cc_batch *b, cc_bytes key, cc_schema schema) {
    if (b->field) cc__batch_close_field(b);
    if (b->n == 0) {
        fail(b, "a header with no record: call cc_batch_add first");
        return false;
    }
    size_t klen = key.len;
    if (klen == 0) {
        fail(b, "a header with an empty key");
        return false;
    }
    if (!schema_ok(b, schema, "header value")) return false;
    b->stage = 3;
    if (!b->header_counts) {
        b->extra = true;
        b->header_counts = cc__xmalloc(b->rcap * sizeof *b->header_counts);
        memset(b->header_counts, 0, b->n * sizeof *b->header_counts);
    }
    b->header_counts[b->n - 1]++;
    if (b->nh == b->hcap) {
        b->hcap = b->hcap ? 2 * b->hcap : 16;
        GROW(b->header_key_lengths, b->hcap);
        GROW(b->header_value_lengths, b->hcap);
        if (b->header_schemas) GROW(b->header_schemas, b->hcap);
    }
    if (schema != CC_RAW && !b->header_schemas) {
        b->header_schemas = cc__xmalloc(b->hcap * sizeof *b->header_schemas);
        for (size_t i = 0; i < b->nh; i++) b->header_schemas[i] = CC_RAW;
    }
    if (b->header_schemas) b->header_schemas[b->nh] = schema;
    b->header_key_lengths[b->nh] = (uint32_t)klen;
    b->header_value_lengths[b->nh] = -1;
    b->nh++;
    grow_data_to(b, b->len + klen);
    memcpy(b->data + b->len, key.ptr, klen);
    b->len += klen;
    return true;
}

void cc_batch_header_begin(cc_batch *b, const char *key, cc_schema schema) {
    if (header_start(b, cc_str(key), schema)) open_field(b, 3, schema);
}

void cc_batch_header_null(cc_batch *b, const char *key) {
    header_start(b, cc_str(key), CC_RAW);
}

void cc_batch_topic(cc_batch *b, const char *topic) {
    if (b->n == 0) return fail(b, "a topic with no record: call cc_batch_add first");
    int32_t index = -1;
    if (topic) {
        size_t n = strlen(topic);
        for (size_t i = b->ntopics; i-- > 0;)
            if (strcmp(b->topics[i], topic) == 0) {
                index = (int32_t)i;
                break;
            }
        if (index < 0) {
            if (b->ntopics == b->topics_cap) {
                b->topics_cap = b->topics_cap ? 2 * b->topics_cap : 4;
                GROW(b->topics, b->topics_cap);
            }
            b->topics[b->ntopics] = cc__strndup((const uint8_t *)topic, n);
            index = (int32_t)b->ntopics++;
        }
    } else if (b->kind == CC__BATCH_TRANSFORM) {
        return fail(b, "a transform's record needs a topic");
    }
    if (!b->topic_indices) b->topic_indices = column_s32(b, -1);
    b->topic_indices[b->n - 1] = index;
}

void cc_batch_partition(cc_batch *b, int32_t partition) {
    if (b->n == 0) return fail(b, "a partition with no record: call cc_batch_add first");
    if (!b->partitions) b->partitions = column_s32(b, -1);
    b->partitions[b->n - 1] = partition < 0 ? -1 : partition;
}

void cc_batch_timestamp(cc_batch *b, int64_t timestamp) {
    if (b->n == 0) return fail(b, "a timestamp with no record: call cc_batch_add first");
    if (!b->timestamps) {
        b->extra = true;
        b->timestamps = cc__xmalloc(b->rcap * sizeof *b->timestamps);
        for (size_t i = 0; i < b->n; i++) b->timestamps[i] = -1;
    }
    b->timestamps[b->n - 1] = timestamp < 0 ? -1 : timestamp;
}

void cc_batch_position(cc_batch *b, const char *partition, const char *offset) {
    if (!partition || !offset) return fail(b, "a position needs a partition and an offset");
    for (size_t i = 0; i < b->npositions; i++) {
        if (strcmp(b->positions[2 * i], partition) == 0) {
            free(b->positions[2 * i + 1]);
            b->positions[2 * i + 1] = cc__strndup((const uint8_t *)offset, strlen(offset));
            return;
        }
    }
    if (b->npositions == b->positions_cap) {
        b->positions_cap = b->positions_cap ? 2 * b->positions_cap : 4;
        b->positions = cc__xrealloc(b->positions, 2 * b->positions_cap * sizeof *b->positions);
    }
    b->positions[2 * b->npositions] = cc__strndup((const uint8_t *)partition, strlen(partition));
    b->positions[2 * b->npositions + 1] = cc__strndup((const uint8_t *)offset, strlen(offset));
    b->npositions++;
}

void cc__batch_finish(cc_batch *b) {
    if (b->field) cc__batch_close_field(b);
}

/* ------------------------------------------------------------------ */
/* The value writer                                                     */
/* ------------------------------------------------------------------ */

static inline uint8_t *room(cc_batch *b, size_t n) {
    if (b->cap - b->len < n) grow_data_to(b, b->len + n);
    uint8_t *p = b->data + b->len;
    b->len += n;
    return p;
}

static inline void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void put_le(cc_batch *b, uint64_t v, size_t n) {
    uint8_t *p = room(b, n);
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The node the next value fills (CC_SCHEMALESS in a schemaless value), or
 * CC_SCHEMA_INVALID after a mistake. */
static int32_t next_node(cc_batch *b, const char *what) {
    if (!b->typed) {
        fail(b, "%s written with no typed key, value or header value open", what);
        return CC_SCHEMA_INVALID;
    }
    if (b->depth - 1 > CC__MAX_DEPTH) {
        fail(b, "a value nested deeper than %d levels", CC__MAX_DEPTH);
        return CC_SCHEMA_INVALID;
    }
    struct cc__frame *f = &b->stack[b->depth - 1];
    if (f->node == CC_SCHEMALESS) {
        if (f->kind == 0 && f->index) {
            fail(b, "%s written after the field's value was complete", what);
            return CC_SCHEMA_INVALID;
        }
        f->index++;
        return CC_SCHEMALESS;
    }
    const cc_schema_node *n = &cc__schemas.nodes[f->node];
    int32_t node;
    switch (f->kind) {
    case 0:
        if (f->index) {
            fail(b, "%s written after the field's value was complete", what);
            return CC_SCHEMA_INVALID;
        }
        node = f->node;
        break;
    case 1:
        if (f->index >= n->children_len) {
            fail(b, "%s written past the last field of struct %.*s", what, (int)n->name.len,
                 n->has_name ? (const char *)n->name.ptr : "(unnamed)");
            return CC_SCHEMA_INVALID;
        }
        node = (int32_t)n->children[f->index];
        break;
    case 2: node = (int32_t)n->children[0]; break;
    default: node = (int32_t)n->children[f->index % 2]; break;
    }
    f->index++;
    return node;
}

static const char *field_hint(cc_batch *b) {
    struct cc__frame *f = &b->stack[b->depth - 1];
    if (f->kind != 1) return "";
    const cc_schema_node *n = &cc__schemas.nodes[f->node];
    static char hint[96];
    cc_bytes name = n->field_names[f->index - 1];
    snprintf(hint, sizeof hint, " (field '%.*s')", (int)(name.len > 60 ? 60 : name.len), (const char *)name.ptr);
    return hint;
}

/* Start a non-null value of `type`: its tag (schemaless) or its presence
 * byte (an optional node). Returns the node, or CC_SCHEMA_INVALID. */
static int32_t begin_value(cc_batch *b, cc_type type) {
    if (b->error) return CC_SCHEMA_INVALID;
    int32_t node = next_node(b, type_name(type));
    if (node == CC_SCHEMA_INVALID) return node;
    if (node == CC_SCHEMALESS) {
        if (type == CC_STRUCT) {
            fail(b, "a struct in a schemaless value (structs need a schema)");
            return CC_SCHEMA_INVALID;
        }
        *room(b, 1) = (uint8_t)(type + 1);
        return node;
    }
    const cc_schema_node *n = &cc__schemas.nodes[node];
    if (n->type != type) {
        fail(b, "a %s where the schema%s has %s %s", type_name(type), field_hint(b),
             n->type == CC_INT8 || n->type == CC_INT16 || n->type == CC_INT32 || n->type == CC_INT64 ? "an" : "a",
             type_name(n->type));
        return CC_SCHEMA_INVALID;
    }
    if (n->optional) *room(b, 1) = 1;
    return node;
}

void cc_write_null(cc_batch *b) {
    if (b->error) return;
    int32_t node = next_node(b, "null");
    if (node == CC_SCHEMA_INVALID) return;
    if (node != CC_SCHEMALESS && !cc__schemas.nodes[node].optional) {
        fail(b, "null for a required %s%s", type_name(cc__schemas.nodes[node].type), field_hint(b));
        return;
    }
    *room(b, 1) = 0; /* the presence byte, or the null tag */
}

#define WRITE_FIXED(fn, ctype, type, bits)                                     \
    void fn(cc_batch *b, ctype v) {                                            \
        if (begin_value(b, type) == CC_SCHEMA_INVALID) return;                 \
        uint##bits##_t u;                                                      \
        memcpy(&u, &v, sizeof u);                                              \
        put_le(b, u, bits / 8);                                                \
    }

WRITE_FIXED(cc_write_int8, int8_t, CC_INT8, 8)
WRITE_FIXED(cc_write_int16, int16_t, CC_INT16, 16)
WRITE_FIXED(cc_write_int32, int32_t, CC_INT32, 32)
WRITE_FIXED(cc_write_int64, int64_t, CC_INT64, 64)
WRITE_FIXED(cc_write_float32, float, CC_FLOAT32, 32)
WRITE_FIXED(cc_write_float64, double, CC_FLOAT64, 64)

void cc_write_bool(cc_batch *b, bool v) {
    if (begin_value(b, CC_BOOLEAN) == CC_SCHEMA_INVALID) return;
    *room(b, 1) = v ? 1 : 0;
}

static void write_body(cc_batch *b, const void *ptr, size_t len) {
    if (len > UINT32_MAX) return fail(b, "a string or bytes of %zu bytes (at most 4 GiB - 1)", len);
    uint8_t *p = room(b, 4 + len);
    put_u32(p, (uint32_t)len);
    if (len) memcpy(p + 4, ptr, len);
}

void cc_write_string(cc_batch *b, const void *utf8, size_t len) {
    if (begin_value(b, CC_STRING) == CC_SCHEMA_INVALID) return;
    write_body(b, utf8, len);
}

void cc_write_str(cc_batch *b, const char *s) {
    cc_write_string(b, s, strlen(s));
}

void cc_write_bytes(cc_batch *b, const void *ptr, size_t len) {
    if (begin_value(b, CC_BYTES) == CC_SCHEMA_INVALID) return;
    write_body(b, ptr, len);
}

void cc_write_decimal(cc_batch *b, int64_t v) {
    if (b->error) return;
    /* Check the schema before anything is written. */
    if (b->typed) {
        struct cc__frame *f = &b->stack[b->depth - 1];
        if (f->node == CC_SCHEMALESS) return fail(b, "a Decimal in a schemaless value (Decimals need a schema)");
    }
    int32_t node = begin_value(b, CC_BYTES);
    if (node == CC_SCHEMA_INVALID) return;
    const cc_schema_node *n = &cc__schemas.nodes[node];
    if (!n->has_name || !cc_bytes_eq(n->name, CC_DECIMAL_NAME))
        return fail(b, "a Decimal where the schema%s has plain bytes", field_hint(b));
    /* The shortest big-endian two's complement, at least one byte (what
     * Java's BigInteger.toByteArray gives). */
    uint8_t be[8];
    for (int i = 0; i < 8; i++) be[i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
    int skip = 0;
    while (skip < 7 && ((be[skip] == 0x00 && !(be[skip + 1] & 0x80)) || (be[skip] == 0xFF && (be[skip + 1] & 0x80))))
        skip++;
    write_body(b, be + skip, (size_t)(8 - skip));
}

static void push(cc_batch *b, int32_t node, uint8_t kind, bool counted) {
    if (b->depth >= CC__MAX_DEPTH + 2) return fail(b, "a value nested deeper than %d levels", CC__MAX_DEPTH);
    struct cc__frame *f = &b->stack[b->depth++];
    f->node = node;
    f->kind = kind;
    f->index = 0;
    f->count_at = b->len;
    if (counted) room(b, 4);
}

void cc_write_array_begin(cc_batch *b) {
    int32_t node = begin_value(b, CC_ARRAY);
    if (node != CC_SCHEMA_INVALID) push(b, node, 2, true);
}

void cc_write_map_begin(cc_batch *b) {
    int32_t node = begin_value(b, CC_MAP);
    if (node != CC_SCHEMA_INVALID) push(b, node, 3, true);
}

void cc_write_struct_begin(cc_batch *b) {
    int32_t node = begin_value(b, CC_STRUCT);
    if (node != CC_SCHEMA_INVALID) push(b, node, 1, false);
}

static struct cc__frame *end_frame(cc_batch *b, uint8_t kind, const char *what) {
    if (b->error) return NULL;
    if (!b->typed || b->depth < 2 || b->stack[b->depth - 1].kind != kind) {
        fail(b, "%s_end with no %s open", what, what);
        return NULL;
    }
    return &b->stack[--b->depth];
}

void cc_write_array_end(cc_batch *b) {
    struct cc__frame *f = end_frame(b, 2, "array");
    if (f) put_u32(b->data + f->count_at, f->index);
}

void cc_write_map_end(cc_batch *b) {
    struct cc__frame *f = end_frame(b, 3, "map");
    if (!f) return;
    if (f->index % 2) return fail(b, "a map ended after a key without its value");
    put_u32(b->data + f->count_at, f->index / 2);
}

void cc_write_struct_end(cc_batch *b) {
    struct cc__frame *f = end_frame(b, 1, "struct");
    if (!f) return;
    const cc_schema_node *n = &cc__schemas.nodes[f->node];
    if (f->index != n->children_len)
        fail(b, "struct %.*s ended after %" PRIu32 " of its %zu fields", (int)n->name.len,
             n->has_name ? (const char *)n->name.ptr : "(unnamed)", f->index, n->children_len);
}

/* ------------------------------------------------------------------ */
/* Transforms: records from the input                                   */
/* ------------------------------------------------------------------ */

void cc_batch_add_from(cc_batch *b, const cc_view *in, size_t i) {
    if (b->kind != CC__BATCH_TRANSFORM) return fail(b, "cc_batch_add_from outside a transform's apply");
    if (i >= in->n) return fail(b, "cc_batch_add_from: no input record %zu (the batch has %zu)", i, in->n);
    cc_batch_add(b);
    size_t o = b->n - 1;
    if (o && b->origins[o - 1] > i)
        return fail(b, "it comes from input record %zu, after one from record %" PRIu32 " (origins never decrease)",
                    i, b->origins[o - 1]);
    b->origins[o] = (uint32_t)i;
    b->topic_indices[o] = (int32_t)in->topic_indices[i];
    b->partitions[o] = in->partitions[i];
    b->timestamps[o] = in->timestamps[i];
    b->offsets[o] = in->offsets ? in->offsets[i] : -1;
}

/* Put `d` (a field of an input record) as field `field` of the current
 * record, bytes and schema as they are. */
static void copy_field(cc_batch *b, uint8_t field, cc_data d) {
    if (b->field) cc__batch_close_field(b);
    const char *what = field == 1 ? "key" : "value";
    if (b->n == 0) return fail(b, "a %s with no record: call cc_batch_add first", what);
    if (b->stage >= field) return fail(b, "a %s after the record's %s", what, field == 1 ? "key, value or headers" : "value or headers");
    b->stage = field;
    if (!schema_ok(b, d.schema, what)) return;
    int32_t **col = field == 1 ? &b->key_schemas : &b->value_schemas;
    if (d.schema != CC_RAW && !*col) *col = column_s32(b, CC_RAW);
    if (*col) (*col)[b->n - 1] = d.schema;
    if (d.null) return;
    grow_data_to(b, b->len + d.len);
    if (d.len) memcpy(b->data + b->len, d.ptr, d.len);
    b->len += d.len;
    (field == 1 ? b->key_lengths : b->value_lengths)[b->n - 1] = (int32_t)d.len;
}

void cc_batch_key_copy(cc_batch *b, const cc_view *in, size_t i) {
    copy_field(b, 1, cc_view_key(in, i));
}

void cc_batch_value_copy(cc_batch *b, const cc_view *in, size_t i) {
    copy_field(b, 2, cc_view_value(in, i));
}

void cc_batch_headers_copy(cc_batch *b, const cc_view *in, size_t i) {
    size_t count = cc_view_header_count(in, i);
    for (size_t j = 0; j < count; j++) {
        cc_data d = cc_view_header_value(in, i, j);
        if (!header_start(b, cc_view_header_key(in, i, j), d.schema)) return;
        if (d.null) continue;
        grow_data_to(b, b->len + d.len);
        if (d.len) memcpy(b->data + b->len, d.ptr, d.len);
        b->len += d.len;
        b->header_value_lengths[b->nh - 1] = (int32_t)d.len;
    }
}
