/*
 * copycat.h: the C SDK for Copycat connectors and transforms.
 *
 * A Copycat connector is a WebAssembly component implementing the world
 * `source` or `sink` of `copycat:connector@0.3.0` (wit/connector@0.3.0/),
 * optionally with a running connector instance (`copycat:dynamic@0.1.0`);
 * a transform implements `copycat:transform@0.1.0`. This SDK hides the
 * bindings `wit-bindgen c` generates: you fill in one constant struct of
 * callbacks (`copycat_source`, `copycat_sink` or `copycat_transform`, plus
 * `copycat_dynamic` for a dynamic connector) and work with plain C types.
 *
 * RECORDS travel in batches (wit/connector@0.3.0/batch.wit): one byte
 * buffer holding every key, value and header back to back, and integer
 * columns. A source (and a transform) writes records with the builder
 * (`cc_batch`): cc_batch_add() starts a record, then its key, its value and
 * its headers are appended straight into the batch's buffer, as raw bytes
 * (cc_batch_append*) or as typed values (a schema from cc_schema_*() and
 * the value writer cc_write_*(), encoded as batch.wit says). A sink (and a
 * transform) reads a batch through a view (`cc_view`): record i's key,
 * value and header slices point into the batch the host passed, and
 * cc_reader decodes a typed value item by item. Nothing is copied per
 * record, and nothing is allocated per record.
 *
 *     #include <copycat.h>
 *
 *     static const cc_config_key KEYS[] = {
 *         { "topic", CC_TYPE_STRING, .required = true, .doc = "Kafka topic" },
 *     };
 *
 *     static cc_status start(const cc_config *config) { ... }
 *     static cc_status poll(uint32_t max, cc_batch *batch) {
 *         cc_batch_add(batch);
 *         cc_batch_value_str(batch, "hello");
 *         cc_batch_position(batch, "{\"file\":\"a\"}", "{\"line\":1}");
 *         return CC_OK;
 *     }
 *
 *     const copycat_source_t copycat_source = {
 *         .name = "my-source", .version = "0.1.0",
 *         .description = "What it moves, from where to where",
 *         .config_def = KEYS, .config_def_len = CC_COUNT(KEYS),
 *         .start = start, .poll = poll,
 *     };
 *
 * guest-sdk/c/build.sh --world source|source-dynamic|sink|sink-dynamic|
 * transform compiles your files with the SDK and that world's bindings.
 *
 * ERRORS. Every fallible callback returns a `cc_status`: CC_OK, or the
 * error variant to report. Create it with cc_error_config(),
 * cc_error_retriable(), cc_error_fatal() (or, in a transform,
 * cc_error_record()): they format the message (printf-style), keep it until
 * the SDK hands it to the host, and return the status, so
 * `return cc_error_fatal("open %s: %s", path, strerror(errno));` is the
 * whole idiom. Never abort() or trap: a trap fails the task at once with no
 * retry. A batch written wrongly (a value that does not fit its schema, a
 * key after a value) is not sent: the callback's call fails with
 * connector-error::fatal naming the record and the mistake.
 *
 * MEMORY. Everything the SDK passes to a callback (configs, views, lists)
 * is borrowed for the duration of the call: copy what you keep. Everything
 * you pass to the SDK (strings, bytes, problems, task configs) is copied by
 * it.
 *
 * Each task runs in its own instance, so module-level (static) variables are
 * per task; calls never overlap.
 */
#ifndef COPYCAT_H
#define COPYCAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define CC_LIKELY(x) __builtin_expect(!!(x), 1)
#define CC_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Number of elements of a static array. */
#define CC_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

/* The result of a fallible callback: CC_OK or an error variant. */
typedef enum {
    CC_OK = 0,
    /* connector-error::config (transform-error::config): bad config; the
     * task stays failed until the operator changes it. */
    CC_ERR_CONFIG,
    /* connector-error::retriable: transient; the host retries the same call.
     * (A transform has no retriable error: it becomes fatal.) */
    CC_ERR_RETRIABLE,
    /* connector-error::fatal (transform-error::fatal): the task fails. */
    CC_ERR_FATAL,
    /* transform-error::record: one input record cannot be transformed
     * (Kafka Connect's DataException). Transforms only (elsewhere: fatal). */
    CC_ERR_RECORD,
} cc_status;

/* Record an error message (printf-style) and return its status. The latest
 * message wins; the SDK sends it with the status the callback returns. */
cc_status cc_error_config(const char *fmt, ...) CC_PRINTF(1, 2);
cc_status cc_error_retriable(const char *fmt, ...) CC_PRINTF(1, 2);
cc_status cc_error_fatal(const char *fmt, ...) CC_PRINTF(1, 2);
cc_status cc_error(cc_status kind, const char *fmt, ...) CC_PRINTF(2, 3);
/* Transforms: input record `index` cannot be transformed. */
cc_status cc_error_record(uint32_t index, const char *fmt, ...) CC_PRINTF(2, 3);

/* The message of the latest error (empty if none). */
const char *cc_error_message(void);

/* ------------------------------------------------------------------ */
/* Byte strings                                                         */
/* ------------------------------------------------------------------ */

/* A borrowed byte string (not NUL-terminated). */
typedef struct {
    const uint8_t *ptr;
    size_t len;
} cc_bytes;

/* A cc_bytes of a C string. */
static inline cc_bytes cc_str(const char *s) {
    cc_bytes b = {(const uint8_t *)s, s ? strlen(s) : 0};
    return b;
}

/* Whether `b` holds exactly the C string `s`. */
static inline bool cc_bytes_eq(cc_bytes b, const char *s) {
    size_t n = strlen(s);
    return b.len == n && (n == 0 || memcmp(b.ptr, s, n) == 0);
}


/* ------------------------------------------------------------------ */
/* Schemas (wit/connector@0.3.0/batch.wit, Kafka Connect's data model)  */
/* ------------------------------------------------------------------ */

/* Kafka Connect's schema types, numbered as batch.wit's `schema-type`. */
typedef enum {
    CC_INT8,
    CC_INT16,
    CC_INT32,
    CC_INT64,
    CC_FLOAT32,
    CC_FLOAT64,
    CC_BOOLEAN,
    CC_STRING,
    CC_BYTES,
    CC_ARRAY,
    CC_MAP,
    CC_STRUCT,
} cc_type;

/* What a key, value or header value is: a schema (the index of its root
 * node in the batch's schema table, >= 0), or one of: */
typedef int32_t cc_schema;
/* Raw bytes (handed to Kafka as they are; a sink's ByteArrayConverter). */
#define CC_RAW ((cc_schema)-1)
/* A schemaless value (Kafka Connect's null schema, e.g. JsonConverter with
 * schemas.enable=false): every value carries its type. */
#define CC_SCHEMALESS ((cc_schema)-2)
/* What a schema builder returns for bad input (the latest error says why);
 * a record using it fails the batch. */
#define CC_SCHEMA_INVALID ((cc_schema)-3)

/* The logical types' schema names. */
#define CC_DECIMAL_NAME "org.apache.kafka.connect.data.Decimal"
#define CC_DATE_NAME "org.apache.kafka.connect.data.Date"
#define CC_TIME_NAME "org.apache.kafka.connect.data.Time"
#define CC_TIMESTAMP_NAME "org.apache.kafka.connect.data.Timestamp"

/* The schema table. Schemas are nodes of one table, each node after the
 * nodes it refers to, as they cross the boundary. The builders below add a
 * node (or find an equal one: equal schemas share their nodes) and return
 * its index.
 *
 * - A source's table lives as long as its task: build schemas in `start`
 *   and use them in every `poll`. A batch carries the table when a record
 *   of it is typed.
 * - A transform's table is, during `apply`, the input batch's nodes (so an
 *   input record's schema is valid in the output) followed by the nodes the
 *   transform adds; build new schemas inside `apply`.
 * - A sink reads the schemas of the batch it was given (cc_view_schema()).
 */

/* A primitive schema (int8 ... bytes). */
cc_schema cc_schema_of(cc_type type, bool optional);
/* An array of `element`. */
cc_schema cc_schema_array(cc_schema element, bool optional);
/* A map from `key` to `value`. */
cc_schema cc_schema_map(cc_schema key, cc_schema value, bool optional);

/* One struct field. */
typedef struct {
    const char *name;
    cc_schema schema;
} cc_field;

/* A struct named `name` (NULL: unnamed) of `len` fields, in order. */
cc_schema cc_schema_struct(const char *name, bool optional, const cc_field *fields, size_t len);

/* Logical types: Decimal (bytes, parameter scale), Date (int32 days since
 * 1970-01-01), Time (int32 ms of the day), Timestamp (int64 ms since the
 * epoch). */
cc_schema cc_schema_decimal(int32_t scale, bool optional);
cc_schema cc_schema_date(bool optional);
cc_schema cc_schema_time(bool optional);
cc_schema cc_schema_timestamp(bool optional);

/* Any node, with every attribute a schema-node has. */
typedef struct {
    cc_type type;
    bool optional;
    const char *name;            /* NULL: none */
    bool has_version;
    int32_t version;
    const char *doc;             /* NULL: none */
    const char *const *parameters; /* key, value, key, value ... */
    size_t parameters_len;       /* pairs */
    const uint8_t *default_value; /* in batch.wit's value encoding under this schema */
    size_t default_len;
    bool has_default;
    const cc_schema *children;   /* array: element; map: key, value; struct: fields */
    size_t children_len;
    const char *const *field_names; /* struct: one per child */
} cc_schema_spec;
cc_schema cc_schema_build(const cc_schema_spec *spec);

/* A node as read from a table. Strings are byte strings (not
 * NUL-terminated); `parameters` holds 2 * parameters_len strings (key,
 * value, ...). */
typedef struct {
    cc_type type;
    bool optional;
    bool has_name;
    cc_bytes name;
    bool has_version;
    int32_t version;
    bool has_doc;
    cc_bytes doc;
    const cc_bytes *parameters;
    size_t parameters_len;
    bool has_default;
    cc_bytes default_value;
    const uint32_t *children;
    size_t children_len;
    const cc_bytes *field_names;
} cc_schema_node;

/* A table of nodes (a batch's, or the SDK's). */
typedef struct {
    const cc_schema_node *nodes;
    size_t len;
} cc_schemas;

/* Node `schema` of the current table (a source's; during `put` the sink's
 * batch's; during `apply` the transform's output table), or NULL when there
 * is none. */
const cc_schema_node *cc_schema_get(cc_schema schema);

/* ------------------------------------------------------------------ */
/* Building a batch: sources (poll) and transforms (apply)              */
/* ------------------------------------------------------------------ */

/* A batch being written. Records are appended in order: cc_batch_add()
 * starts one; then, in this order, its key (optional: none means a null
 * key), its value (none: a tombstone) and its headers; its topic,
 * partition and timestamp may be set any time before the next record.
 *
 * A key or value is one field: cc_batch_key(b, ptr, len) writes raw bytes
 * at once; cc_batch_key_begin(b, schema) opens it for raw appends
 * (CC_RAW: cc_batch_append*) or for a typed value (a schema or
 * CC_SCHEMALESS: cc_write_*). A field ends when the next one begins, the
 * next record starts or the callback returns.
 *
 * Mistakes (a key after the value, a value that does not fit its schema)
 * do not trap: the batch keeps the first one (cc_batch_error()) and the
 * callback fails with it. The struct is the SDK's: use the functions. */
typedef struct cc_batch cc_batch;

struct cc__frame {
    int32_t node;     /* CC_SCHEMALESS inside a schemaless value */
    uint8_t kind;     /* 0 root, 1 struct, 2 array, 3 map */
    uint32_t index;   /* struct: fields written; array/map: items written */
    size_t count_at;  /* array/map: where its u32 count goes */
};

struct cc_batch {
    /* data */
    uint8_t *data;
    size_t len, cap;
    /* the open raw field: appends go straight to data */
    bool raw;
    /* records */
    size_t n, rcap;
    int32_t *key_lengths, *value_lengths;
    int32_t *key_schemas, *value_schemas; /* NULL until a record is typed */
    int32_t *topic_indices, *partitions;  /* NULL until set */
    int64_t *timestamps, *offsets;
    uint32_t *header_counts, *origins;
    /* headers */
    size_t nh, hcap;
    uint32_t *header_key_lengths;
    int32_t *header_value_lengths, *header_schemas;
    /* topics and positions */
    char **topics;
    size_t ntopics, topics_cap;
    char **positions; /* partition, offset, partition, offset ... */
    size_t npositions, positions_cap;
    /* the open field: 0 none, 1 key, 2 value, 3 header value */
    uint8_t field, stage;
    size_t field_start;
    /* the value writer */
    bool typed;
    uint32_t depth;
    struct cc__frame stack[102];
    /* 0 source, 1 transform */
    uint8_t kind;
    bool any_typed;
    /* a column beyond the key and value lengths is in use */
    bool extra;
    char *error;
};

/* Slow paths of the inline functions below. */
void cc__batch_grow_records(cc_batch *b);
void cc__batch_append_slow(cc_batch *b, const void *ptr, size_t len);
void cc__batch_add_columns(cc_batch *b);
uint8_t *cc__batch_space_slow(cc_batch *b, size_t len);
void cc__batch_close_field(cc_batch *b);
void cc__batch_key_begin(cc_batch *b, cc_schema schema);
void cc__batch_value_begin(cc_batch *b, cc_schema schema);

/* Close the open field (raw fields inline). */
static inline void cc__batch_close(cc_batch *b) {
    if (CC_LIKELY(b->raw && b->field < 3)) {
        size_t len = b->len - b->field_start;
        if (CC_LIKELY(len <= INT32_MAX)) {
            (b->field == 1 ? b->key_lengths : b->value_lengths)[b->n - 1] = (int32_t)len;
            b->field = 0;
            b->raw = false;
            return;
        }
    }
    cc__batch_close_field(b);
}

/* Start the next record: no key, a null value, no headers, the default
 * topic, partition and timestamp. */
static inline void cc_batch_add(cc_batch *b) {
    if (b->field) cc__batch_close(b);
    if (CC_UNLIKELY(b->n == b->rcap)) cc__batch_grow_records(b);
    b->key_lengths[b->n] = -1;
    b->value_lengths[b->n] = -1;
    b->n++;
    b->stage = 0;
    if (CC_UNLIKELY(b->extra)) cc__batch_add_columns(b);
}

/* Reserve room for `records` more records and `bytes` more data bytes
 * (a hint; batches grow as needed). */
void cc_batch_reserve(cc_batch *b, size_t records, size_t bytes);

/* Open the current record's key / value as `schema` (CC_RAW: appended
 * bytes; CC_SCHEMALESS or a schema: a value written with cc_write_*). */
static inline void cc_batch_key_begin(cc_batch *b, cc_schema schema) {
    if (b->field) cc__batch_close(b);
    if (CC_LIKELY(schema == CC_RAW && b->stage == 0 && b->n && !b->key_schemas && !b->error)) {
        b->stage = 1;
        b->field = 1;
        b->field_start = b->len;
        b->raw = true;
        return;
    }
    cc__batch_key_begin(b, schema);
}
static inline void cc_batch_value_begin(cc_batch *b, cc_schema schema) {
    if (b->field) cc__batch_close(b);
    if (CC_LIKELY(schema == CC_RAW && b->stage < 2 && b->n && !b->value_schemas && !b->error)) {
        b->stage = 2;
        b->field = 2;
        b->field_start = b->len;
        b->raw = true;
        return;
    }
    cc__batch_value_begin(b, schema);
}

/* Append `len` bytes to the open raw field. */
static inline void cc_batch_append(cc_batch *b, const void *ptr, size_t len) {
    if (CC_UNLIKELY(!b->raw || b->cap - b->len < len)) {
        cc__batch_append_slow(b, ptr, len);
        return;
    }
    memcpy(b->data + b->len, ptr, len);
    b->len += len;
}

/* `len` bytes of room at the end of the open raw field, to fill; they
 * count as appended (NULL after a mistake). */
static inline uint8_t *cc_batch_space(cc_batch *b, size_t len) {
    if (CC_UNLIKELY(!b->raw || b->cap - b->len < len)) return cc__batch_space_slow(b, len);
    uint8_t *p = b->data + b->len;
    b->len += len;
    return p;
}

static inline void cc_batch_append_str(cc_batch *b, const char *s) {
    cc_batch_append(b, s, strlen(s));
}

/* Append `v` in decimal (ASCII), written in place two digits at a time. */
static inline void cc_batch_append_u64(cc_batch *b, uint64_t v) {
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                   "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                   "8081828384858687888990919293949596979899";
    size_t n = 1;
    for (uint64_t p = 10; n < 20 && v >= p; p *= 10) n++;
    uint8_t *out = cc_batch_space(b, n);
    if (!out) return;
    out += n;
    while (v >= 100) {
        const char *d = &pairs[2 * (v % 100)];
        v /= 100;
        *--out = (uint8_t)d[1];
        *--out = (uint8_t)d[0];
    }
    if (v >= 10) {
        *--out = (uint8_t)pairs[2 * v + 1];
        *--out = (uint8_t)pairs[2 * v];
    } else {
        *--out = (uint8_t)('0' + v);
    }
}
static inline void cc_batch_append_i64(cc_batch *b, int64_t v) {
    if (v < 0) {
        cc_batch_append(b, "-", 1);
        cc_batch_append_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        cc_batch_append_u64(b, (uint64_t)v);
    }
}

/* Append `len` copies of `byte`. */
static inline void cc_batch_append_fill(cc_batch *b, uint8_t byte, size_t len) {
    uint8_t *p = cc_batch_space(b, len);
    if (p) memset(p, byte, len);
}

/* Bytes in the open field so far. */
static inline size_t cc_batch_field_len(const cc_batch *b) {
    return b->field ? b->len - b->field_start : 0;
}

/* Raw key / value in one call. */
static inline void cc_batch_key(cc_batch *b, const void *ptr, size_t len) {
    cc_batch_key_begin(b, CC_RAW);
    cc_batch_append(b, ptr, len);
}
static inline void cc_batch_value(cc_batch *b, const void *ptr, size_t len) {
    cc_batch_value_begin(b, CC_RAW);
    cc_batch_append(b, ptr, len);
}
static inline void cc_batch_key_str(cc_batch *b, const char *s) {
    cc_batch_key(b, s, strlen(s));
}
static inline void cc_batch_value_str(cc_batch *b, const char *s) {
    cc_batch_value(b, s, strlen(s));
}

/* A header of the current record: `key` (UTF-8, non-empty) with a value
 * opened as `schema` (then append or write it as for a key), or with no
 * value (cc_batch_header_null). */
void cc_batch_header_begin(cc_batch *b, const char *key, cc_schema schema);
void cc_batch_header_null(cc_batch *b, const char *key);
static inline void cc_batch_header(cc_batch *b, const char *key, const void *ptr, size_t len) {
    cc_batch_header_begin(b, key, CC_RAW);
    cc_batch_append(b, ptr, len);
}

/* The current record's topic (NULL: a source's configured `topic`),
 * Kafka partition (-1: the producer's partitioner) and timestamp (ms since
 * the epoch; -1: Kafka stamps it). */
void cc_batch_topic(cc_batch *b, const char *topic);
void cc_batch_partition(cc_batch *b, int32_t partition);
void cc_batch_timestamp(cc_batch *b, int64_t timestamp);

/* Sources: the position (source offset) the batch reaches in `partition`
 * (both JSON objects, e.g. {"file":"a.txt"} and {"line":12}). At most one
 * per partition: a later call for the same partition replaces the offset.
 * A batch may carry positions and no records. */
void cc_batch_position(cc_batch *b, const char *partition, const char *offset);

/* Records so far. */
static inline size_t cc_batch_len(const cc_batch *b) {
    return b->n;
}

/* The first mistake made writing this batch, or NULL. */
const char *cc_batch_error(const cc_batch *b);

/* ---- the value writer: the open typed field (a key, value or header
 * value begun with a schema or CC_SCHEMALESS). Write exactly one value:
 * containers with their begin/end pairs, a struct's fields in schema
 * order. Under a schema, each write is checked against the node it fills
 * and an optional node's presence byte is written for you. */
void cc_write_null(cc_batch *b);
void cc_write_int8(cc_batch *b, int8_t v);
void cc_write_int16(cc_batch *b, int16_t v);
void cc_write_int32(cc_batch *b, int32_t v);
void cc_write_int64(cc_batch *b, int64_t v);
void cc_write_float32(cc_batch *b, float v);
void cc_write_float64(cc_batch *b, double v);
void cc_write_bool(cc_batch *b, bool v);
void cc_write_string(cc_batch *b, const void *utf8, size_t len);
void cc_write_str(cc_batch *b, const char *s);
void cc_write_bytes(cc_batch *b, const void *ptr, size_t len);
/* A Decimal: its unscaled value (the schema carries the scale). */
void cc_write_decimal(cc_batch *b, int64_t unscaled);
/* Arrays and maps: begin, the items (a map: key, value, key, value ...),
 * end. The count is filled in at the end. */
void cc_write_array_begin(cc_batch *b);
void cc_write_array_end(cc_batch *b);
void cc_write_map_begin(cc_batch *b);
void cc_write_map_end(cc_batch *b);
/* Structs (schema only): begin, every field in order, end. */
void cc_write_struct_begin(cc_batch *b);
void cc_write_struct_end(cc_batch *b);

/* ------------------------------------------------------------------ */
/* Reading a batch: sinks (put) and transforms (apply)                  */
/* ------------------------------------------------------------------ */

/* A key, value or header value of a record: its bytes in the batch and
 * what they are. */
typedef struct {
    /* CC_RAW, CC_SCHEMALESS or a schema (node index in the view's table). */
    cc_schema schema;
    /* A null value (no key, a tombstone, a header without a value). */
    bool null;
    const uint8_t *ptr;
    size_t len;
} cc_data;

/* A read-only view of a batch the host passed (borrowed for the call). */
typedef struct cc_view cc_view;

size_t cc_view_len(const cc_view *v);
cc_data cc_view_key(const cc_view *v, size_t i);
cc_data cc_view_value(const cc_view *v, size_t i);
cc_bytes cc_view_topic(const cc_view *v, size_t i);
/* The partition (-1: none, a source's record in a transform). */
int32_t cc_view_partition(const cc_view *v, size_t i);
/* The offset (-1: none, a source's record in a transform). */
int64_t cc_view_offset(const cc_view *v, size_t i);
/* Milliseconds since the epoch, or -1 for none. */
int64_t cc_view_timestamp(const cc_view *v, size_t i);
size_t cc_view_header_count(const cc_view *v, size_t i);
cc_bytes cc_view_header_key(const cc_view *v, size_t i, size_t j);
cc_data cc_view_header_value(const cc_view *v, size_t i, size_t j);
/* The batch's schema table, and one node of it (NULL if out of range). */
cc_schemas cc_view_schemas(const cc_view *v);
const cc_schema_node *cc_view_schema(const cc_view *v, cc_schema schema);

/* What the reader returns, one per value and one per container's end. */
typedef enum {
    CC_ITEM_INT8 = CC_INT8,
    CC_ITEM_INT16 = CC_INT16,
    CC_ITEM_INT32 = CC_INT32,
    CC_ITEM_INT64 = CC_INT64,
    CC_ITEM_FLOAT32 = CC_FLOAT32,
    CC_ITEM_FLOAT64 = CC_FLOAT64,
    CC_ITEM_BOOLEAN = CC_BOOLEAN,
    CC_ITEM_STRING = CC_STRING,
    CC_ITEM_BYTES = CC_BYTES,
    CC_ITEM_ARRAY = CC_ARRAY,   /* begin; `count` items follow, then END */
    CC_ITEM_MAP = CC_MAP,       /* begin; `count` key/value pairs, then END */
    CC_ITEM_STRUCT = CC_STRUCT, /* begin; its fields, then END */
    CC_ITEM_NULL,
    CC_ITEM_END,                /* `container` says which one ends */
} cc_item_kind;

typedef struct {
    cc_item_kind kind;
    /* The node this value is of (CC_SCHEMALESS in a schemaless value). */
    cc_schema schema;
    /* In a struct: the field's name (else ptr NULL). */
    cc_bytes field;
    /* In a map: whether this is an entry's key. */
    bool map_key;
    union {
        int64_t i;      /* int8 ... int64 */
        double f;       /* float32, float64 */
        bool b;         /* boolean */
        cc_bytes bytes; /* string (UTF-8), bytes (a Decimal's unscaled big-endian two's complement) */
        uint32_t count; /* array: items; map: entries; struct: fields */
        cc_item_kind container; /* END */
    } v;
} cc_item;

/* Decodes one value, checking every length, count and node against the
 * bytes and the table (a batch from the host is trusted, but a damaged one
 * is an error, not a crash). */
typedef struct {
    const cc_schemas *table;
    cc_schemas own_table;
    const uint8_t *p, *end;
    size_t budget;
    uint32_t depth;
    bool started, failed, null;
    char error[160];
    struct {
        int32_t node;
        uint8_t kind;
        uint64_t left;
        uint32_t index;
    } stack[102];
} cc_reader;

/* Read `data` (a typed or schemaless cc_data; raw bytes are not an
 * encoding) under `table` (cc_view_schemas()). */
void cc_reader_init(cc_reader *r, cc_schemas table, cc_data data);
/* The next item: 1, 0 at the end of the value (every byte used), -1 on
 * malformed bytes (cc_reader_error() says what). */
int cc_read(cc_reader *r, cc_item *item);
const char *cc_reader_error(const cc_reader *r);

/* Write an item read by cc_read into the open typed field of `b` (copying
 * values between batches; END closes the container). */
void cc_write_item(cc_batch *b, const cc_item *item);

/* ------------------------------------------------------------------ */
/* Configurations                                                       */
/* ------------------------------------------------------------------ */

/* One key/value pair, NUL-terminated. */
typedef struct {
    char *key;
    char *value;
} cc_config_entry;

/* A configuration: the operator's key/value pairs (keys are unique). Every
 * key is passed through, including the host's (`name`, `tasks.max`,
 * `grants.*`). */
typedef struct cc_config {
    cc_config_entry *entries;
    size_t len;
    size_t cap;
} cc_config;

/* The value of `key`, or NULL when absent. */
const char *cc_config_get(const cc_config *config, const char *key);

/* The value of a required `key` into *out (a pointer into the config).
 * Missing or blank (only white space): CC_ERR_CONFIG "config 'key' is
 * required but is not set" (or "... is empty"). */
cc_status cc_config_require(const cc_config *config, const char *key, const char **out);

/* A decimal integer `key` in [min, max] into *out; `def` when the key is
 * absent or blank. Otherwise CC_ERR_CONFIG naming the key and the value. */
cc_status cc_config_int64(const cc_config *config, const char *key, int64_t def, int64_t min, int64_t max,
                          int64_t *out);

/* `true` or `false` (any case); `def` when absent or blank. */
cc_status cc_config_bool(const cc_config *config, const char *key, bool def, bool *out);

/* A comma-separated list of decimal integers in [min, max] (items trimmed,
 * empty items dropped) into a malloc'ed array *out of *len items (NULL when
 * empty; free() it). Absent key: *out = NULL, *len = 0. */
cc_status cc_config_int64_list(const cc_config *config, const char *key, int64_t min, int64_t max, int64_t **out,
                               size_t *len);

/* Set `key` to `value` (copied), replacing an existing value. */
void cc_config_set(cc_config *config, const char *key, const char *value);

/* Remove `key` if present. */
void cc_config_remove(cc_config *config, const char *key);

/* Copy `src` into the (empty or freed) `dst`. */
void cc_config_copy(cc_config *dst, const cc_config *src);

/* Free the entries of a config you built yourself (not the struct). */
void cc_config_free(cc_config *config);

/* Task configs, built by `task_configs`. */
typedef struct cc_config_list {
    cc_config *items;
    size_t len;
    size_t cap;
} cc_config_list;

/* Append a copy of `config` and return it, for cc_config_set(). */
cc_config *cc_config_list_add(cc_config_list *list, const cc_config *config);

/* The configuration definition: one entry per key, for `describe`. */
typedef enum {
    CC_TYPE_STRING,
    CC_TYPE_INT,
    CC_TYPE_LONG,
    CC_TYPE_DOUBLE,
    CC_TYPE_BOOLEAN,
    CC_TYPE_LIST,
    CC_TYPE_PASSWORD,
} cc_config_type;

typedef enum {
    CC_IMPORTANCE_HIGH,
    CC_IMPORTANCE_MEDIUM,
    CC_IMPORTANCE_LOW,
} cc_importance;

typedef struct {
    const char *name;
    cc_config_type type;
    /* NULL: no default. */
    const char *default_value;
    bool required;
    const char *doc;
    /* Zero-initialised: CC_IMPORTANCE_HIGH. */
    cc_importance importance;
} cc_config_key;

/* Problems found by `validate`, one per key at fault. */
typedef struct cc_problems cc_problems;

/* Add a problem on `key` ("" for the config as a whole). */
void cc_problem(cc_problems *problems, const char *key, const char *fmt, ...) CC_PRINTF(3, 4);

/* If `status` is an error, add a problem on `key` with the latest error
 * message (as left by a failed cc_config_* getter). Returns `status`. */
cc_status cc_problem_check(cc_problems *problems, const char *key, cc_status status);

/* ------------------------------------------------------------------ */
/* Host functions                                                       */
/* ------------------------------------------------------------------ */

typedef enum {
    CC_LOG_TRACE,
    CC_LOG_DEBUG,
    CC_LOG_INFO,
    CC_LOG_WARN,
    CC_LOG_ERROR,
} cc_log_level;

/* One line in the worker's log (the host adds connector name and task id). */
void cc_log(cc_log_level level, const char *fmt, ...) CC_PRINTF(2, 3);
#define cc_log_trace(...) cc_log(CC_LOG_TRACE, __VA_ARGS__)
#define cc_log_debug(...) cc_log(CC_LOG_DEBUG, __VA_ARGS__)
#define cc_log_info(...) cc_log(CC_LOG_INFO, __VA_ARGS__)
#define cc_log_warn(...) cc_log(CC_LOG_WARN, __VA_ARGS__)
#define cc_log_error(...) cc_log(CC_LOG_ERROR, __VA_ARGS__)

/* Milliseconds since the Unix epoch. */
int64_t cc_now_ms(void);
/* Nanoseconds on a monotonic clock (for intervals). */
uint64_t cc_monotonic_ns(void);

/* Whether `path` lies under a directory the operator granted
 * (grants.fs.read / grants.fs.write). Files are plain WASI: open(), fopen()
 * and friends with absolute paths, and a path outside every grant looks
 * missing (ENOENT); use this to report a missing grant as a config error. */
bool cc_fs_granted(const char *path);


/* ------------------------------------------------------------------ */
/* Source connectors (worlds `source`, `source-dynamic`)                */
/* ------------------------------------------------------------------ */

/* A source partition and its offset (JSON objects). */
typedef struct {
    const char *partition;
    const char *offset;
} cc_source_position;

/* Committed offsets, as read by cc_offsets_read(). */
typedef struct {
    cc_source_position *items;
    size_t len;
} cc_positions;

/* Read the committed offsets of `partitions` (those never committed are
 * absent). Free the result with cc_positions_free(). Sources only. */
cc_positions cc_offsets_read(const char *const *partitions, size_t len);
/* The offset of `partition` in `positions`, or NULL. */
const char *cc_positions_get(const cc_positions *positions, const char *partition);
void cc_positions_free(cc_positions *positions);

/* Exactly-once sources with transaction.boundary=connector: commit or abort
 * the transaction holding the batch of this poll. */
void cc_transaction_commit(void);
void cc_transaction_abort(void);

/* The callbacks of a source connector. Define exactly one
 * `const copycat_source_t copycat_source = {...};`. NULL callbacks take the
 * default noted for each. */
typedef struct {
    /* describe */
    const char *name;
    const char *version;
    const char *description;
    const cc_config_key *config_def;
    size_t config_def_len;

    /* Add problems for bad keys. NULL: no problems. */
    void (*validate)(const cc_config *config, cc_problems *problems);
    /* Split the work into at most `max_tasks` task configs. NULL: one copy of
     * the config. */
    cc_status (*task_configs)(const cc_config *config, uint32_t max_tasks, cc_config_list *out);

    /* The task. `start` and `poll` are required. */
    cc_status (*start)(const cc_config *config);
    /* Add at most `max_records` records to `batch` and the positions they
     * reach; none when nothing is ready (return quickly, never sleep). */
    cc_status (*poll)(uint32_t max_records, cc_batch *batch);
    /* These offsets are durable. NULL: nothing to do. */
    cc_status (*commit)(const cc_source_position *positions, size_t len);
    /* NULL: nothing to do. */
    void (*stop)(void);
} copycat_source_t;

extern const copycat_source_t copycat_source;

/* ------------------------------------------------------------------ */
/* Dynamic connectors (worlds `source-dynamic`, `sink-dynamic`)         */
/* ------------------------------------------------------------------ */

/* The running connector instance (copycat:dynamic/instance@0.1.0, Kafka
 * Connect's Connector.start / taskConfigs / stop), for a connector whose
 * work changes while it runs. The host keeps one instance per connector,
 * calls `monitor` every connector.monitor.interval.ms, and after
 * cc_request_task_reconfiguration() asks `task_configs` again and replaces
 * the tasks if the configs changed. Define exactly one
 * `const copycat_dynamic_t copycat_dynamic = {...};` and build with
 * --world source-dynamic (or sink-dynamic). */
typedef struct {
    /* Start watching with the connector's config; *watch = false when there
     * is nothing to watch (the host then asks task_configs once and stops
     * the instance). Required. */
    cc_status (*start)(const cc_config *config, bool *watch);
    /* The task configs for the work as it is now. Required. */
    cc_status (*task_configs)(uint32_t max_tasks, cc_config_list *out);
    /* Look at the source; call cc_request_task_reconfiguration() when the
     * work changed. CC_ERR_RETRIABLE is logged and the next call comes as
     * usual; any other error fails the connector. NULL: nothing to do. */
    cc_status (*monitor)(void);
    /* NULL: nothing to do. */
    void (*stop)(void);
} copycat_dynamic_t;

extern const copycat_dynamic_t copycat_dynamic;

/* Ask the host to call task_configs again (cheap; acted on once after the
 * current call). */
void cc_request_task_reconfiguration(void);
/* Put the connector in FAILED with this message (its tasks go on). */
void cc_raise_error(const char *fmt, ...) CC_PRINTF(1, 2);

/* ------------------------------------------------------------------ */
/* Sink connectors (worlds `sink`, `sink-dynamic`)                      */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *topic;
    int32_t partition;
} cc_topic_partition;

typedef struct {
    const char *topic;
    int32_t partition;
    /* The next offset to read. */
    int64_t offset;
} cc_topic_partition_offset;

/* The offsets `open` returns. */
typedef struct cc_offsets cc_offsets;

/* Resume `topic`/`partition` at `offset` (the next offset to read). */
void cc_offsets_add(cc_offsets *offsets, const char *topic, int32_t partition, int64_t offset);

/* Errant records (copycat:errant/reporter@0.1.0, Kafka Connect's
 * ErrantRecordReporter). During `put`, report a record of the batch the task
 * cannot write: the host logs it, sends it as it was consumed to the
 * connector's dead letter queue and, with errors.tolerance=all, the task
 * goes on. A reported record counts as handled: its offset is committed with
 * the batch's. Sinks only; a sink that calls cc_report_errant() imports the
 * reporter, one that does not, does not. */
typedef enum {
    /* Reported: the record is handled. */
    CC_ERRANT_REPORTED = 0,
    /* The connector sets neither errors.deadletterqueue.topic.name nor
     * errors.log.enable, so there is no reporter: handle the record yourself
     * (fail `put`, or skip it knowingly). */
    CC_ERRANT_UNAVAILABLE,
    /* errors.tolerance=none: the record was logged and queued, and the task
     * fails once `put` returns. */
    CC_ERRANT_TOLERANCE_EXCEEDED,
    /* No record at `index` in the batch of the running `put` (or no `put`
     * is running); cc_errant_message() says which. */
    CC_ERRANT_NO_SUCH_RECORD,
} cc_errant_status;

/* Report record `index` (from 0, in the batch the running `put` received)
 * as errant because of `reason`, `len` bytes (not necessarily
 * NUL-terminated; the host keeps the first 4 KiB). Reporting a record again
 * in the same `put` changes nothing.
 *
 *     if (cc_report_errant(i, why, strlen(why)) != CC_ERRANT_REPORTED)
 *         return cc_error_fatal("offset %lld: %s (%s)", (long long)offset, why, cc_errant_message());
 */
cc_errant_status cc_report_errant(size_t index, const char *reason, size_t len);

/* Why the latest cc_report_errant() failed, as text (the Rust SDK's words):
 * "no errant record reporter: ...", "errors.tolerance=none: ..." or "no such
 * record: <the host's message>"; "" after a success. Valid until the next
 * report. */
const char *cc_errant_message(void);

/* The callbacks of a sink connector. Define exactly one
 * `const copycat_sink_t copycat_sink = {...};`. */
typedef struct {
    const char *name;
    const char *version;
    const char *description;
    const cc_config_key *config_def;
    size_t config_def_len;

    /* NULL: no problems. */
    void (*validate)(const cc_config *config, cc_problems *problems);
    /* NULL: `max_tasks` copies of the config (the consumer group spreads
     * the partitions). */
    cc_status (*task_configs)(const cc_config *config, uint32_t max_tasks, cc_config_list *out);

    /* Required. */
    cc_status (*start)(const cc_config *config);
    /* Partitions assigned; add the ones whose progress you keep yourself.
     * NULL: none (the consumer group's offsets are used). */
    cc_status (*open)(const cc_topic_partition *partitions, size_t len, cc_offsets *resume);
    /* Required: the records, read through the view. */
    cc_status (*put)(const cc_view *batch);
    /* Make everything put so far durable. NULL: nothing to do. */
    cc_status (*flush)(const cc_topic_partition_offset *offsets, size_t len);
    /* Partitions revoked. NULL: nothing to do. */
    cc_status (*close)(const cc_topic_partition *partitions, size_t len);
    void (*stop)(void);
} copycat_sink_t;

extern const copycat_sink_t copycat_sink;

/* ------------------------------------------------------------------ */
/* Transforms (world `transform`)                                        */
/* ------------------------------------------------------------------ */

/* Start an output record from input record `i` of `in`: its origin is i,
 * and its topic, partition, timestamp and offset are the input's. Then
 * write its key, value and headers (cc_batch_key_copy() and
 * cc_batch_headers_copy() keep the input's). */
void cc_batch_add_from(cc_batch *b, const cc_view *in, size_t i);
/* The input's key (bytes and schema) as the current record's key. */
void cc_batch_key_copy(cc_batch *b, const cc_view *in, size_t i);
/* The input's value as the current record's value. */
void cc_batch_value_copy(cc_batch *b, const cc_view *in, size_t i);
/* The input's headers as the current record's headers. */
void cc_batch_headers_copy(cc_batch *b, const cc_view *in, size_t i);

/* The callbacks of a transform. Define exactly one
 * `const copycat_transform_t copycat_transform = {...};`. */
typedef struct {
    const char *name;
    const char *version;
    const char *description;
    /* The settings it takes (the keys after transforms.<alias>.). */
    const cc_config_key *config_def;
    size_t config_def_len;

    /* NULL: no problems. */
    void (*validate)(const cc_config *config, cc_problems *problems);
    /* Called once before any apply. NULL: nothing to configure. */
    cc_status (*configure)(const cc_config *config);
    /* Write the records that come out of `in` to `out`, each started with
     * cc_batch_add_from() (origins never decrease). Required. */
    cc_status (*apply)(const cc_view *in, cc_batch *out);
} copycat_transform_t;

extern const copycat_transform_t copycat_transform;

#ifdef __cplusplus
}
#endif

#endif /* COPYCAT_H */
