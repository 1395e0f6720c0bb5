/*
 * counter-source: counts upwards on `streams` source partitions
 * ({"stream":"stream-0"} ... {"stream":"stream-<n-1>"}), `count` records
 * each (0 = unbounded), as raw bytes or typed records, and resumes every
 * stream after its last committed offset. With `streams.file` set, its
 * running instance watches that file for the number of streams and asks
 * the host for new task configs when it changes.
 * Behaviour: examples/SPEC.md in the Copycat checkout.
 */
#include <copycat.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ASSIGNED "counter.streams.assigned"

static const cc_config_key KEYS[] = {
    {"topic", CC_TYPE_STRING, .required = true, .doc = "Kafka topic"},
    {"streams", CC_TYPE_INT, .default_value = "1",
     .doc = "Streams = source partitions {\"stream\":\"stream-0\"} ... {\"stream\":\"stream-<n-1>\"}"},
    {"count", CC_TYPE_LONG, .default_value = "100", .doc = "Records per stream; 0 = unbounded"},
    {"typed", CC_TYPE_BOOLEAN, .default_value = "false", .doc = "Typed records instead of raw bytes"},
    {"value.size", CC_TYPE_INT, .default_value = "0",
     .doc = "Raw bytes only: pad each value with '.' up to this many bytes"},
    {"streams.file", CC_TYPE_STRING, .default_value = "",
     .doc = "A file holding the number of streams (grant it with grants.fs.read); watched when set"},
};

/* ---- settings ----------------------------------------------------------- */

typedef struct {
    const char *topic;
    int64_t streams;
    int64_t count;
    bool typed;
    int64_t value_size;
} settings;

static cc_status parse_streams(const cc_config *c, int64_t *out) {
    return cc_config_int64(c, "streams", 1, 1, INT32_MAX, out);
}
static cc_status parse_count(const cc_config *c, int64_t *out) {
    return cc_config_int64(c, "count", 100, 0, INT64_MAX, out);
}
static cc_status parse_value_size(const cc_config *c, int64_t *out) {
    return cc_config_int64(c, "value.size", 0, 0, INT32_MAX, out);
}
static cc_status parse_typed(const cc_config *c, bool *out) {
    return cc_config_bool(c, "typed", false, out);
}

static cc_status parse(const cc_config *c, settings *s) {
    cc_status st;
    if ((st = parse_streams(c, &s->streams))) return st;
    if ((st = parse_count(c, &s->count))) return st;
    if ((st = parse_value_size(c, &s->value_size))) return st;
    if ((st = parse_typed(c, &s->typed))) return st;
    return cc_config_require(c, "topic", &s->topic);
}

/* ---- connector ---------------------------------------------------------- */

static void validate(const cc_config *config, cc_problems *problems) {
    int64_t n;
    bool b;
    const char *topic;
    cc_problem_check(problems, "streams", parse_streams(config, &n));
    cc_problem_check(problems, "count", parse_count(config, &n));
    cc_problem_check(problems, "value.size", parse_value_size(config, &n));
    cc_problem_check(problems, "typed", parse_typed(config, &b));
    cc_problem_check(problems, "topic", cc_config_require(config, "topic", &topic));
}

/* k = min(streams, max_tasks) configs; config i gets the streams j with
 * j % k == i. `set_streams`: also set `streams` (the dynamic instance). */
static cc_status split(const cc_config *config, int64_t streams, uint32_t max_tasks, bool set_streams,
                       cc_config_list *out) {
    int64_t k = streams < (int64_t)max_tasks ? streams : (int64_t)max_tasks;
    if (k < 1) k = 1;
    char number[24];
    snprintf(number, sizeof number, "%" PRId64, streams);
    for (int64_t i = 0; i < k; i++) {
        size_t cap = 32, len = 0;
        char *assigned = malloc(cap);
        if (!assigned) return cc_error_fatal("out of memory");
        assigned[0] = '\0';
        for (int64_t j = i; j < streams; j += k) {
            char item[24];
            int w = snprintf(item, sizeof item, "%s%" PRId64, len ? "," : "", j);
            if (len + (size_t)w + 1 > cap) {
                cap = 2 * (len + (size_t)w + 1);
                char *grown = realloc(assigned, cap);
                if (!grown) {
                    free(assigned);
                    return cc_error_fatal("out of memory");
                }
                assigned = grown;
            }
            memcpy(assigned + len, item, (size_t)w + 1);
            len += (size_t)w;
        }
        cc_config *c = cc_config_list_add(out, config);
        cc_config_set(c, ASSIGNED, assigned);
        if (set_streams) cc_config_set(c, "streams", number);
        free(assigned);
    }
    return CC_OK;
}

static cc_status task_configs(const cc_config *config, uint32_t max_tasks, cc_config_list *out) {
    settings s;
    cc_status st = parse(config, &s);
    if (st) return st;
    return split(config, s.streams, max_tasks, false, out);
}

/* ---- the running instance: watches streams.file -------------------------- */

static cc_config dyn_config;
static int64_t dyn_streams;
static const char *dyn_file; /* in dyn_config; NULL: nothing to watch */

/* The number of streams in `path`: a decimal integer >= 1, white space
 * around it ignored. */
static cc_status read_streams_file(const char *path, cc_status kind, int64_t *out) {
    FILE *f = fopen(path, "r");
    if (!f) return cc_error(kind, "config 'streams.file': cannot read %s: %s", path, strerror(errno));
    char text[64];
    size_t n = fread(text, 1, sizeof text - 1, f);
    bool failed = ferror(f) != 0, more = !feof(f) && fgetc(f) != EOF;
    fclose(f);
    if (failed) return cc_error(kind, "config 'streams.file': cannot read %s", path);
    text[n] = '\0';
    char *p = text, *end;
    while (isspace((unsigned char)*p)) p++;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    while (isspace((unsigned char)*end)) end++;
    if (more || end == p || *end != '\0' || errno || v < 1 || v > INT32_MAX || !isdigit((unsigned char)*p))
        return cc_error(kind, "config 'streams.file': %s does not hold a number of streams (an integer >= 1)", path);
    *out = v;
    return CC_OK;
}

static cc_status dyn_start(const cc_config *config, bool *watch) {
    settings s;
    cc_status st = parse(config, &s);
    if (st) return st;
    cc_config_free(&dyn_config);
    cc_config_copy(&dyn_config, config);
    dyn_streams = s.streams;
    dyn_file = cc_config_get(&dyn_config, "streams.file");
    if (dyn_file && dyn_file[strspn(dyn_file, " \t\r\n")] == '\0') dyn_file = NULL;
    *watch = dyn_file != NULL;
    if (!dyn_file) return CC_OK;
    return read_streams_file(dyn_file, CC_ERR_CONFIG, &dyn_streams);
}

static cc_status dyn_task_configs(uint32_t max_tasks, cc_config_list *out) {
    return split(&dyn_config, dyn_streams, max_tasks, true, out);
}

static cc_status dyn_monitor(void) {
    if (!dyn_file) return CC_OK;
    int64_t now;
    cc_status st = read_streams_file(dyn_file, CC_ERR_RETRIABLE, &now);
    if (st) return st;
    if (now != dyn_streams) {
        cc_log_info("%s: %" PRId64 " stream(s), was %" PRId64, dyn_file, now, dyn_streams);
        dyn_streams = now;
        cc_request_task_reconfiguration();
    }
    return CC_OK;
}

static void dyn_stop(void) {
    cc_config_free(&dyn_config);
    dyn_file = NULL;
}

const copycat_dynamic_t copycat_dynamic = {
    .start = dyn_start,
    .task_configs = dyn_task_configs,
    .monitor = dyn_monitor,
    .stop = dyn_stop,
};

/* ---- task --------------------------------------------------------------- */

typedef struct {
    int64_t index;      /* j of stream-<j> */
    uint64_t next;      /* the next sequence number */
    char prefix[32];    /* "stream-<j>:", the start of every key */
    size_t prefix_len;  /* (the name is the prefix without its ':') */
    bool touched;       /* has records in the batch being written */
} stream;

static settings cfg;
static stream *streams; /* this task's streams */
static size_t nstreams;
static size_t cursor;   /* round-robin position */
static cc_schema key_schema, count_schema;

/* The integer `seq` of a committed offset {"seq":n}; false if it has none.
 * Offsets are flat JSON objects (strings, numbers, booleans, null). */
static bool offset_seq(const char *json, uint64_t *out) {
    const char *p = json;
    while (isspace((unsigned char)*p)) p++;
    if (*p++ != '{') return false;
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (*p != '"') return false;
        const char *key = ++p;
        while (*p && *p != '"') p += *p == '\\' && p[1] ? 2 : 1;
        if (*p != '"') return false;
        bool is_seq = p - key == 3 && strncmp(key, "seq", 3) == 0;
        p++;
        while (isspace((unsigned char)*p)) p++;
        if (*p++ != ':') return false;
        while (isspace((unsigned char)*p)) p++;
        if (is_seq) {
            if (!isdigit((unsigned char)*p)) return false;
            errno = 0;
            char *end;
            unsigned long long v = strtoull(p, &end, 10);
            if (errno || *end == '.' || *end == 'e' || *end == 'E') return false;
            *out = v;
            return true;
        }
        /* Skip the value: a string, or a run up to ',' or '}'. */
        if (*p == '"') {
            p++;
            while (*p && *p != '"') p += *p == '\\' && p[1] ? 2 : 1;
            if (*p++ != '"') return false;
        } else {
            while (*p && *p != ',' && *p != '}') p++;
        }
        while (isspace((unsigned char)*p)) p++;
        if (*p == ',') {
            p++;
            continue;
        }
        return false; /* '}' or garbage: no seq */
    }
}

static cc_status start(const cc_config *config) {
    cc_status st = parse(config, &cfg);
    if (st) return st;

    int64_t *assigned = NULL;
    size_t n = 0;
    if (cc_config_get(config, ASSIGNED)) {
        if ((st = cc_config_int64_list(config, ASSIGNED, 0, INT32_MAX, &assigned, &n))) return st;
    } else {
        n = (size_t)cfg.streams;
        assigned = malloc(n * sizeof *assigned);
        if (!assigned) return cc_error_fatal("out of memory");
        for (size_t j = 0; j < n; j++) assigned[j] = (int64_t)j;
    }
    free(streams);
    streams = calloc(n ? n : 1, sizeof *streams);
    char(*names)[48] = calloc(n ? n : 1, sizeof *names);
    const char **partitions = calloc(n ? n : 1, sizeof *partitions);
    if (!streams || !names || !partitions) {
        free(assigned);
        free(names);
        free(partitions);
        return cc_error_fatal("out of memory");
    }
    nstreams = n;
    cursor = 0;
    for (size_t i = 0; i < n; i++) {
        streams[i].index = assigned[i];
        streams[i].prefix_len = (size_t)snprintf(streams[i].prefix, sizeof streams[i].prefix, "stream-%" PRId64 ":",
                                                 assigned[i]);
        snprintf(names[i], sizeof names[i], "{\"stream\":\"stream-%" PRId64 "\"}", assigned[i]);
        partitions[i] = names[i];
    }
    free(assigned);

    /* Resume after the committed offsets. */
    cc_positions committed = cc_offsets_read(partitions, n);
    for (size_t i = 0; i < n && st == CC_OK; i++) {
        const char *offset = cc_positions_get(&committed, names[i]);
        uint64_t last;
        if (!offset) streams[i].next = 0;
        else if (offset_seq(offset, &last)) streams[i].next = last + 1;
        else st = cc_error_fatal("stream-%" PRId64 ": committed offset %s has no integer \"seq\"", streams[i].index, offset);
    }
    cc_positions_free(&committed);
    free(names);
    free(partitions);
    if (st) return st;

    if (cfg.typed) {
        key_schema = cc_schema_of(CC_STRING, false);
        cc_field fields[] = {
            {"stream", cc_schema_of(CC_STRING, false)},
            {"seq", cc_schema_of(CC_INT64, false)},
            {"even", cc_schema_of(CC_BOOLEAN, false)},
            {"note", cc_schema_of(CC_STRING, true)},
        };
        count_schema = cc_schema_struct("copycat.examples.Count", false, fields, CC_COUNT(fields));
    }
    cc_log_info("counting %zu stream(s) into %s, %" PRId64 " record(s) each%s", n, cfg.topic, cfg.count,
                cfg.typed ? ", typed" : "");
    return CC_OK;
}

static bool done(const stream *s) {
    return cfg.count > 0 && s->next >= (uint64_t)cfg.count;
}

/* One typed record: key "stream-<j>:<seq>", value a Count struct. */
static void typed_record(cc_batch *batch, const stream *s, uint64_t seq) {
    char text[64];
    size_t name_len = s->prefix_len - 1;
    int n = snprintf(text, sizeof text, "%.*s%" PRIu64, (int)s->prefix_len, s->prefix, seq);
    cc_batch_key_begin(batch, key_schema);
    cc_write_string(batch, text, (size_t)n);
    cc_batch_value_begin(batch, count_schema);
    cc_write_struct_begin(batch);
    cc_write_string(batch, s->prefix, name_len);
    cc_write_int64(batch, (int64_t)seq);
    cc_write_bool(batch, seq % 2 == 0);
    if (seq % 2 == 0) {
        n = snprintf(text, sizeof text, "n%" PRIu64, seq);
        cc_write_string(batch, text, (size_t)n);
    } else {
        cc_write_null(batch);
    }
    cc_write_struct_end(batch);
}

static cc_status poll(uint32_t max_records, cc_batch *batch) {
    uint32_t emitted = 0;
    size_t idle = 0; /* streams visited in a row without a record */
    size_t value_size = (size_t)cfg.value_size;
    while (emitted < max_records && idle < nstreams) {
        stream *s = &streams[cursor];
        cursor = cursor + 1 == nstreams ? 0 : cursor + 1;
        if (done(s)) {
            idle++;
            continue;
        }
        idle = 0;
        uint64_t seq = s->next++;
        s->touched = true;
        cc_batch_add(batch);
        if (cfg.typed) {
            typed_record(batch, s, seq);
        } else {
            cc_batch_key_begin(batch, CC_RAW);
            cc_batch_append(batch, s->prefix, s->prefix_len);
            cc_batch_append_u64(batch, seq);
            cc_batch_value_begin(batch, CC_RAW);
            cc_batch_append_u64(batch, seq);
            size_t len = cc_batch_field_len(batch);
            if (len < value_size) cc_batch_append_fill(batch, '.', value_size - len);
        }
        emitted++;
    }
    /* The positions: the last offset of each stream in the batch. */
    for (size_t i = 0; i < nstreams; i++) {
        stream *s = &streams[i];
        if (!s->touched) continue;
        s->touched = false;
        char partition[48], offset[40];
        snprintf(partition, sizeof partition, "{\"stream\":\"stream-%" PRId64 "\"}", s->index);
        snprintf(offset, sizeof offset, "{\"seq\":%" PRIu64 "}", s->next - 1);
        cc_batch_position(batch, partition, offset);
    }
    return CC_OK;
}

static void stop(void) {
    free(streams);
    streams = NULL;
    nstreams = 0;
}

const copycat_source_t copycat_source = {
    .name = "counter-source",
    .version = "0.1.0",
    .description = "Counts upwards on N streams into a Kafka topic",
    .config_def = KEYS,
    .config_def_len = CC_COUNT(KEYS),
    .validate = validate,
    .task_configs = task_configs,
    .start = start,
    .poll = poll,
    .stop = stop,
};
