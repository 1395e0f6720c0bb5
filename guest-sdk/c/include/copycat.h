/*
 * copycat.h: the C SDK for Copycat connectors.
 *
 * A Copycat connector is a WebAssembly component implementing the world
 * `source` or `sink` of the WIT package `copycat:connector@0.1.0`
 * (wit/connector/). This SDK hides the bindings that `wit-bindgen c`
 * generates for those worlds: you fill in one constant struct of callbacks,
 * `copycat_source` or `copycat_sink`, and work with plain C types
 * (NUL-terminated strings, byte slices, small arrays). The SDK converts them
 * to and from the canonical ABI and frees everything it allocated.
 *
 *     #include <copycat.h>
 *
 *     static const cc_config_key KEYS[] = {
 *         { "topic", CC_TYPE_STRING, .required = true, .doc = "Kafka topic" },
 *     };
 *
 *     static cc_status start(const cc_config *config) { ... }
 *     static cc_status poll(uint32_t max, cc_batch *batch) { ... }
 *
 *     const copycat_source_t copycat_source = {
 *         .name = "my-source", .version = "0.1.0",
 *         .description = "What it moves, from where to where",
 *         .config_def = KEYS, .config_def_len = CC_COUNT(KEYS),
 *         .start = start, .poll = poll,
 *     };
 *
 * Link the program with guest-sdk/c/src/copycat.c and either guest-sdk/c/src/source.c or
 * guest-sdk/c/src/sink.c plus that world's generated bindings; guest-sdk/c/build.sh does
 * all of it.
 *
 * ERRORS. Every fallible callback returns a `cc_status`: CC_OK, or the
 * connector-error variant to report. Create it with cc_error_config(),
 * cc_error_retriable() or cc_error_fatal(): they format the message
 * (printf-style), keep it until the SDK hands it to the host, and return the
 * status, so `return cc_error_fatal("open %s: %s", path, strerror(errno));`
 * is the whole idiom. Never abort() or trap: a trap fails the task at once
 * with no retry. The config getters below already return CC_ERR_CONFIG with
 * a message naming the key.
 *
 * MEMORY. Everything the SDK passes to a callback (configs, records, lists)
 * is borrowed for the duration of the call: copy what you keep. Everything
 * you pass to the SDK (records, problems, task configs) is copied by it.
 *
 * Each task runs in its own instance, so module-level (static) variables are
 * per task; calls never overlap.
 */
#ifndef COPYCAT_H
#define COPYCAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* Number of elements of a static array. */
#define CC_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

/* The result of a fallible callback: CC_OK or a connector-error variant. */
typedef enum {
    CC_OK = 0,
    /* connector-error::config: bad config; the task stays failed until the
     * operator changes it. */
    CC_ERR_CONFIG,
    /* connector-error::retriable: transient; the host retries the same call. */
    CC_ERR_RETRIABLE,
    /* connector-error::fatal: unrecoverable; the task fails. */
    CC_ERR_FATAL,
} cc_status;

/* Record an error message (printf-style) and return its status. The latest
 * message wins; the SDK sends it with the status the callback returns. */
cc_status cc_error_config(const char *fmt, ...) CC_PRINTF(1, 2);
cc_status cc_error_retriable(const char *fmt, ...) CC_PRINTF(1, 2);
cc_status cc_error_fatal(const char *fmt, ...) CC_PRINTF(1, 2);
cc_status cc_error(cc_status kind, const char *fmt, ...) CC_PRINTF(2, 3);

/* The message of the latest error (empty if none). */
const char *cc_error_message(void);

/* ------------------------------------------------------------------ */
/* Byte strings                                                         */
/* ------------------------------------------------------------------ */

/* A borrowed byte string. */
typedef struct {
    const uint8_t *ptr;
    size_t len;
} cc_bytes;

/* An optional byte string (a record key or value; `none` = a null value).
 * Zero-initialised, it is `none`. */
typedef struct {
    bool some;
    const uint8_t *ptr;
    size_t len;
} cc_opt_bytes;

/* `some(bytes)` from a pointer and length, or from a C string. */
static inline cc_opt_bytes cc_some(const void *ptr, size_t len) {
    cc_opt_bytes b = {true, (const uint8_t *)ptr, len};
    return b;
}
cc_opt_bytes cc_some_str(const char *s);
#define CC_NONE ((cc_opt_bytes){false, NULL, 0})

/* A record header. */
typedef struct {
    const char *key;
    cc_opt_bytes value;
} cc_header;

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
/* Source connectors (world `source`)                                   */
/* ------------------------------------------------------------------ */

/* A record for Kafka. The SDK copies every field. */
typedef struct {
    /* The input stream and the position in it (required). */
    const char *source_partition;
    const char *source_offset;
    /* NULL: the connector's `topic`. */
    const char *topic;
    /* false: the producer's partitioner chooses. */
    bool has_partition;
    int32_t partition;
    cc_opt_bytes key;
    /* `none`: a tombstone. */
    cc_opt_bytes value;
    const cc_header *headers;
    size_t headers_len;
    /* false: Kafka stamps it. */
    bool has_timestamp;
    int64_t timestamp;
} cc_source_record;

/* The records of one `poll`. */
typedef struct cc_batch cc_batch;

/* Append a copy of `record` to the batch. */
void cc_batch_add(cc_batch *batch, const cc_source_record *record);

/* A source partition and its offset. */
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
    /* Add at most `max_records` records to `batch`; none when nothing is
     * ready (return quickly, never sleep). */
    cc_status (*poll)(uint32_t max_records, cc_batch *batch);
    /* These offsets are durable. NULL: nothing to do. */
    cc_status (*commit)(const cc_source_position *positions, size_t len);
    /* NULL: nothing to do. */
    void (*stop)(void);
} copycat_source_t;

extern const copycat_source_t copycat_source;

/* ------------------------------------------------------------------ */
/* Sink connectors (world `sink`)                                       */
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

/* A record from Kafka (borrowed for the `put` call). */
typedef struct {
    const char *topic;
    int32_t partition;
    int64_t offset;
    cc_opt_bytes key;
    cc_opt_bytes value;
    const cc_header *headers;
    size_t headers_len;
    bool has_timestamp;
    int64_t timestamp;
} cc_sink_record;

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

/* Report record `index` (from 0, in the `records` the running `put`
 * received) as errant because of `reason`, `len` bytes (not necessarily
 * NUL-terminated; pass strlen(reason) for a C string; the host keeps the
 * first 4 KiB). Reporting a record again in the same `put` changes nothing.
 *
 *     if (cc_report_errant(i, why, strlen(why)) != CC_ERRANT_REPORTED)
 *         return cc_error_fatal("offset %lld: %s (%s)", (long long)r->offset, why, cc_errant_message());
 */
cc_errant_status cc_report_errant(size_t index, const char *reason, size_t len);

/* Why the latest cc_report_errant() failed, as text: "no errant record
 * reporter: ...", "errors.tolerance=none: ..." or "no such record: <the
 * host's message>"; "" after a success. Valid until the next report. */
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
    /* Required. */
    cc_status (*put)(const cc_sink_record *records, size_t len);
    /* Make everything put so far durable. NULL: nothing to do. */
    cc_status (*flush)(const cc_topic_partition_offset *offsets, size_t len);
    /* Partitions revoked. NULL: nothing to do. */
    cc_status (*close)(const cc_topic_partition *partitions, size_t len);
    void (*stop)(void);
} copycat_sink_t;

extern const copycat_sink_t copycat_sink;

#ifdef __cplusplus
}
#endif

#endif /* COPYCAT_H */
