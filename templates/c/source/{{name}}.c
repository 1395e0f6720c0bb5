/*
 * {{name}}: counts upwards on `streams` source partitions
 * (stream-0 ... stream-<n-1>), `count` records each (0 = unbounded), and
 * resumes every stream after its last committed offset.
 * Started from the counter-source example (examples/SPEC.md): replace
 * the counting with reading your input streams.
 */
#include <copycat.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ASSIGNED "counter.streams.assigned"

static const cc_config_key KEYS[] = {
    {"topic", CC_TYPE_STRING, .required = true, .doc = "Kafka topic to write to"},
    {"streams", CC_TYPE_INT, .default_value = "1",
     .doc = "Number of streams (source partitions stream-0 ... stream-<n-1>)"},
    {"count", CC_TYPE_LONG, .default_value = "100", .doc = "Records per stream; 0 = unbounded"},
};

/* The settings shared by the connector and its tasks. */
typedef struct {
    const char *topic;
    int64_t streams;
    int64_t count;
} settings;

static cc_status parse_streams(const cc_config *config, int64_t *out) {
    return cc_config_int64(config, "streams", 1, 1, INT32_MAX, out);
}

static cc_status parse_count(const cc_config *config, int64_t *out) {
    return cc_config_int64(config, "count", 100, 0, INT64_MAX, out);
}

static cc_status parse(const cc_config *config, settings *s) {
    cc_status st;
    if ((st = parse_streams(config, &s->streams))) return st;
    if ((st = parse_count(config, &s->count))) return st;
    return cc_config_require(config, "topic", &s->topic);
}

/* ---- connector ---------------------------------------------------------- */

static void validate(const cc_config *config, cc_problems *problems) {
    int64_t n;
    const char *topic;
    cc_problem_check(problems, "streams", parse_streams(config, &n));
    cc_problem_check(problems, "count", parse_count(config, &n));
    cc_problem_check(problems, "topic", cc_config_require(config, "topic", &topic));
}

/* k = min(streams, max_tasks) configs; task i gets the streams j with
 * j % k == i. */
static cc_status task_configs(const cc_config *config, uint32_t max_tasks, cc_config_list *out) {
    settings s;
    cc_status st = parse(config, &s);
    if (st) return st;
    int64_t k = s.streams < (int64_t)max_tasks ? s.streams : (int64_t)max_tasks;
    for (int64_t i = 0; i < k; i++) {
        size_t cap = 64, len = 0;
        char *assigned = malloc(cap);
        assigned[0] = '\0';
        for (int64_t j = i; j < s.streams; j += k) {
            char item[24];
            int n = snprintf(item, sizeof item, "%s%" PRId64, len ? "," : "", j);
            if (len + (size_t)n + 1 > cap) assigned = realloc(assigned, cap = 2 * (len + (size_t)n + 1));
            memcpy(assigned + len, item, (size_t)n + 1);
            len += (size_t)n;
        }
        cc_config_set(cc_config_list_add(out, config), ASSIGNED, assigned);
        free(assigned);
    }
    return CC_OK;
}

/* ---- task --------------------------------------------------------------- */

typedef struct {
    int64_t index; /* j of stream-<j> */
    int64_t next;  /* the next sequence number */
} stream;

static int64_t count;     /* records per stream, 0 = unbounded */
static stream *streams;   /* this task's streams */
static size_t nstreams;
static size_t cursor;     /* round-robin position */

static cc_status start(const cc_config *config) {
    settings s;
    cc_status st = parse(config, &s);
    if (st) return st;
    count = s.count;

    int64_t *assigned = NULL;
    size_t n = 0;
    if (cc_config_get(config, ASSIGNED)) {
        if ((st = cc_config_int64_list(config, ASSIGNED, 0, s.streams - 1, &assigned, &n))) return st;
    } else {
        n = (size_t)s.streams;
        assigned = malloc(n * sizeof *assigned);
        for (size_t j = 0; j < n; j++) assigned[j] = (int64_t)j;
    }

    free(streams);
    streams = calloc(n ? n : 1, sizeof *streams);
    nstreams = n;
    cursor = 0;

    /* Resume after the committed offsets. */
    char **names = calloc(n ? n : 1, sizeof *names);
    for (size_t i = 0; i < n; i++) {
        names[i] = malloc(32);
        snprintf(names[i], 32, "stream-%" PRId64, assigned[i]);
    }
    cc_positions committed = cc_offsets_read((const char *const *)names, n);
    for (size_t i = 0; i < n && st == CC_OK; i++) {
        streams[i].index = assigned[i];
        streams[i].next = 0;
        const char *offset = cc_positions_get(&committed, names[i]);
        if (offset) {
            char *end;
            long long last = strtoll(offset, &end, 10);
            if (*offset == '\0' || *end != '\0' || last < 0)
                st = cc_error_fatal("%s: committed offset '%s' is not a sequence number", names[i], offset);
            else
                streams[i].next = (int64_t)last + 1;
        }
    }
    cc_positions_free(&committed);
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    free(assigned);
    if (st == CC_OK) cc_log_info("counting %zu stream(s) into %s, %" PRId64 " record(s) each", n, s.topic, count);
    return st;
}

static bool done(const stream *s) {
    return count > 0 && s->next >= count;
}

static cc_status poll(uint32_t max_records, cc_batch *batch) {
    char partition[32], offset[24], key[64];
    uint32_t emitted = 0;
    size_t idle = 0; /* streams visited in a row without a record */
    while (emitted < max_records && nstreams > 0 && idle < nstreams) {
        stream *s = &streams[cursor];
        cursor = (cursor + 1) % nstreams;
        if (done(s)) {
            idle++;
            continue;
        }
        idle = 0;
        int64_t seq = s->next++;
        snprintf(partition, sizeof partition, "stream-%" PRId64, s->index);
        snprintf(offset, sizeof offset, "%" PRId64, seq);
        snprintf(key, sizeof key, "%s:%s", partition, offset);
        cc_source_record r = {
            .source_partition = partition,
            .source_offset = offset,
            .key = cc_some_str(key),
            .value = cc_some_str(offset),
        };
        cc_batch_add(batch, &r);
        emitted++;
    }
    return CC_OK;
}

static void stop(void) {
    free(streams);
    streams = NULL;
    nstreams = 0;
}

const copycat_source_t copycat_source = {
    .name = "{{name}}",
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
