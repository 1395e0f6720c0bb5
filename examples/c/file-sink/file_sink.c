/*
 * file-sink: appends each record's value and "\n" to
 * <directory>/<topic>-<partition>.txt (raw bytes as they are, a typed value
 * as compact JSON) and keeps its own offsets in
 * <directory>/<topic>-<partition>.offset ("<next-offset> <file-length>"),
 * written atomically on every flush. `open` truncates the data file to the
 * flushed length and resumes there, so the output is exactly-once whatever
 * the consumer group's offsets say. A record whose value starts with
 * "errant:" (raw bytes, or a typed string) is not written: it goes to the
 * errant record reporter (the connector's dead letter queue),
 * cc_report_errant(). Behaviour: examples/SPEC.md in the Copycat checkout.
 *
 * Files are plain POSIX calls: the directory is a WASI preopen granted by
 * the operator with grants.fs.write.
 */
#include <copycat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const cc_config_key KEYS[] = {
    {"directory", CC_TYPE_STRING, .required = true,
     .doc = "Absolute path of the output directory; grant it with grants.fs.write"},
};

/* ---- connector ---------------------------------------------------------- */

static void validate(const cc_config *config, cc_problems *problems) {
    const char *dir;
    cc_problem_check(problems, "directory", cc_config_require(config, "directory", &dir));
}

/* ---- task --------------------------------------------------------------- */

/* One topic partition this task writes. */
typedef struct {
    char *topic;
    int32_t partition;
    int fd;        /* the .txt file, opened for appending; -1 until written */
    int64_t next;  /* the next offset, after the last record written */
    bool dirty;    /* written since the last flush */
} part;

static char *directory;
static part *parts;
static size_t nparts;

/* "<directory>/<topic>-<partition><suffix>", malloc'ed. */
static char *path_of(const char *topic, int32_t partition, const char *suffix) {
    size_t n = strlen(directory) + strlen(topic) + strlen(suffix) + 16;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s-%" PRId32 "%s", directory, topic, partition, suffix);
    return p;
}

/* An I/O failure (errno `e`) on `path`: retriable when it may pass,
 * fatal otherwise. Takes `path` (freed). */
static cc_status io_error(int e, const char *what, char *path) {
    cc_status st;
    if (!cc_fs_granted(path))
        st = cc_error_fatal("%s %s: %s (is %s granted with grants.fs.write?)", what, path, strerror(e), directory);
    else if (e == EAGAIN || e == EINTR || e == EBUSY || e == EIO || e == ENOSPC || e == EDQUOT)
        st = cc_error_retriable("%s %s: %s", what, path, strerror(e));
    else
        st = cc_error_fatal("%s %s: %s", what, path, strerror(e));
    free(path);
    return st;
}

static part *find(cc_bytes topic, int32_t partition) {
    for (size_t i = 0; i < nparts; i++)
        if (parts[i].partition == partition && strlen(parts[i].topic) == topic.len &&
            memcmp(parts[i].topic, topic.ptr, topic.len) == 0)
            return &parts[i];
    return NULL;
}

static part *find_or_add(cc_bytes topic, int32_t partition) {
    part *p = find(topic, partition);
    if (p) return p;
    parts = realloc(parts, (nparts + 1) * sizeof *parts);
    p = &parts[nparts++];
    p->topic = strndup((const char *)topic.ptr, topic.len);
    p->partition = partition;
    p->fd = -1;
    p->next = -1;
    p->dirty = false;
    return p;
}

static void release(part *p) {
    if (p->fd >= 0) close(p->fd);
    free(p->topic);
    *p = parts[--nparts];
}

static void release_all(void) {
    while (nparts) release(&parts[nparts - 1]);
    free(parts);
    parts = NULL;
}

static cc_status write_all(int fd, const uint8_t *data, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return CC_ERR_FATAL;
        }
        data += n;
        len -= (size_t)n;
    }
    return CC_OK;
}

static cc_status start(const cc_config *config) {
    const char *dir;
    cc_status st = cc_config_require(config, "directory", &dir);
    if (st) return st;
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    free(directory);
    directory = strndup(dir, n);
    release_all();
    return CC_OK;
}

/* Resume partitions that have a state file: truncate the data file to the
 * flushed length, return the next offset. */
static cc_status open_partitions(const cc_topic_partition *tps, size_t len, cc_offsets *resume) {
    for (size_t i = 0; i < len; i++) {
        part *old = find(cc_str(tps[i].topic), tps[i].partition);
        if (old) release(old); /* start afresh from the files */

        char *state = path_of(tps[i].topic, tps[i].partition, ".offset");
        FILE *f = fopen(state, "r");
        if (!f) {
            int e = errno;
            if (e == ENOENT && cc_fs_granted(state)) { /* never flushed */
                free(state);
                continue;
            }
            return io_error(e, "cannot read", state);
        }
        long long next, length;
        int fields = fscanf(f, "%lld %lld", &next, &length);
        fclose(f);
        if (fields != 2 || next < 0 || length < 0) {
            cc_status st = cc_error_fatal("%s: not '<next-offset> <file-length>'", state);
            free(state);
            return st;
        }
        free(state);

        char *data = path_of(tps[i].topic, tps[i].partition, ".txt");
        int fd = open(data, O_WRONLY | O_CREAT, 0644);
        if (fd < 0) return io_error(errno, "cannot open", data);
        if (ftruncate(fd, (off_t)length) != 0) {
            int e = errno;
            close(fd);
            return io_error(e, "cannot truncate", data);
        }
        close(fd);
        free(data);

        part *p = find_or_add(cc_str(tps[i].topic), tps[i].partition);
        p->next = next;
        cc_offsets_add(resume, tps[i].topic, tps[i].partition, (int64_t)next);
    }
    return CC_OK;
}

/* A growable byte buffer. */
typedef struct {
    uint8_t *p;
    size_t len, cap;
} buf;

static void put_bytes(buf *b, const void *data, size_t len) {
    if (b->len + len > b->cap) {
        b->cap = 2 * (b->len + len) + 4096;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort(); /* out of memory: nothing better to do */
    }
    if (len) memcpy(b->p + b->len, data, len);
    b->len += len;
}

static void put_str(buf *b, const char *s) {
    put_bytes(b, s, strlen(s));
}

/* ---- typed values as compact JSON ---------------------------------------- */

/* A JSON string: `"`, `\` and control characters escaped, the rest (UTF-8
 * included) as it is. */
static void put_json_string(buf *b, const uint8_t *s, size_t len) {
    put_bytes(b, "\"", 1);
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        uint8_t c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        put_bytes(b, s + from, i - from);
        from = i + 1;
        char esc[8];
        switch (c) {
        case '"': put_str(b, "\\\""); break;
        case '\\': put_str(b, "\\\\"); break;
        case '\n': put_str(b, "\\n"); break;
        case '\r': put_str(b, "\\r"); break;
        case '\t': put_str(b, "\\t"); break;
        case '\b': put_str(b, "\\b"); break;
        case '\f': put_str(b, "\\f"); break;
        default:
            snprintf(esc, sizeof esc, "\\u%04x", c);
            put_str(b, esc);
        }
    }
    put_bytes(b, s + from, len - from);
    put_bytes(b, "\"", 1);
}

/* Standard base64 with padding, quoted. */
static void put_base64(buf *b, const uint8_t *s, size_t len) {
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    put_bytes(b, "\"", 1);
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16;
        if (i + 1 < len) v |= (uint32_t)s[i + 1] << 8;
        if (i + 2 < len) v |= s[i + 2];
        char out[4] = {abc[(v >> 18) & 63], abc[(v >> 12) & 63], i + 1 < len ? abc[(v >> 6) & 63] : '=',
                       i + 2 < len ? abc[v & 63] : '='};
        put_bytes(b, out, 4);
    }
    put_bytes(b, "\"", 1);
}

static int render(cc_reader *r, const cc_item *it, buf *out);

/* The items of a container up to its end, rendered as JSON. */
static int render_items(cc_reader *r, const cc_item *open, buf *out) {
    bool object = open->kind != CC_ITEM_ARRAY;
    put_bytes(out, object ? "{" : "[", 1);
    cc_item child;
    int got;
    for (size_t n = 0; (got = cc_read(r, &child)) == 1 && child.kind != CC_ITEM_END; n++) {
        if (n) put_bytes(out, ",", 1);
        if (open->kind == CC_ITEM_STRUCT) {
            put_json_string(out, child.field.ptr, child.field.len);
            put_bytes(out, ":", 1);
        } else if (open->kind == CC_ITEM_MAP) {
            /* The key: a string as it is, anything else as its JSON text. */
            if (child.kind == CC_ITEM_STRING) {
                put_json_string(out, child.v.bytes.ptr, child.v.bytes.len);
            } else {
                buf key = {NULL, 0, 0};
                int k = render(r, &child, &key);
                if (k == 1) put_json_string(out, key.p, key.len);
                free(key.p);
                if (k != 1) return k;
            }
            put_bytes(out, ":", 1);
            if ((got = cc_read(r, &child)) != 1) break;
        }
        if ((got = render(r, &child, out)) != 1) return got;
    }
    if (got != 1) return -1; /* the value ended inside the container */
    put_bytes(out, object ? "}" : "]", 1);
    return 1;
}

/* One value (its first item `it`, read) as compact JSON. 1, or -1 on
 * malformed bytes. */
static int render(cc_reader *r, const cc_item *it, buf *out) {
    char num[40];
    switch (it->kind) {
    case CC_ITEM_NULL: put_str(out, "null"); return 1;
    case CC_ITEM_INT8:
    case CC_ITEM_INT16:
    case CC_ITEM_INT32:
    case CC_ITEM_INT64:
        snprintf(num, sizeof num, "%" PRId64, it->v.i);
        put_str(out, num);
        return 1;
    case CC_ITEM_FLOAT32:
    case CC_ITEM_FLOAT64:
        snprintf(num, sizeof num, it->kind == CC_ITEM_FLOAT32 ? "%.9g" : "%.17g", it->v.f);
        put_str(out, num);
        return 1;
    case CC_ITEM_BOOLEAN: put_str(out, it->v.b ? "true" : "false"); return 1;
    case CC_ITEM_STRING: put_json_string(out, it->v.bytes.ptr, it->v.bytes.len); return 1;
    case CC_ITEM_BYTES: put_base64(out, it->v.bytes.ptr, it->v.bytes.len); return 1;
    case CC_ITEM_ARRAY:
    case CC_ITEM_MAP:
    case CC_ITEM_STRUCT: return render_items(r, it, out);
    default: return -1;
    }
}

/* The bytes of one run of records of one partition, written in one go. */
static buf run;

/* Open partition `p`'s data file for appending, unless it is open. */
static cc_status open_data(part *p) {
    if (p->fd >= 0) return CC_OK;
    char *data = path_of(p->topic, p->partition, ".txt");
    p->fd = open(data, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (p->fd < 0) return io_error(errno, "cannot open", data);
    free(data);
    return CC_OK;
}

/* Append the run to partition `i`'s data file; on success its next offset
 * becomes `next`. A failed write is rolled back (truncated away), so that
 * the host can redeliver the batch. */
static cc_status write_run(size_t i, int64_t next) {
    part *p = &parts[i];
    cc_status st = CC_OK;
    if (run.len == 0) { /* nothing to write, but reported records advance */
        if (next > p->next) {
            p->next = next;
            p->dirty = true;
        }
        return CC_OK;
    }
    st = open_data(p);
    if (st) {
        run.len = 0;
        return st;
    }
    struct stat before;
    int e = fstat(p->fd, &before) == 0 ? 0 : errno;
    if (e == 0 && write_all(p->fd, run.p, run.len) != CC_OK) {
        e = errno;
        (void)ftruncate(p->fd, before.st_size);
    }
    if (e) st = io_error(e, "cannot append to", path_of(p->topic, p->partition, ".txt"));
    else {
        p->next = next;
        p->dirty = true;
    }
    run.len = 0;
    return st;
}

/* Whether the value is an errant record, "errant:<reason>" as raw bytes or
 * a typed string; *reason gets the rest. */
static bool errant(const cc_view *batch, cc_data value, cc_bytes *reason) {
    cc_bytes text = {value.ptr, value.len};
    if (value.null) return false;
    if (value.schema != CC_RAW) {
        cc_reader r;
        cc_item it;
        cc_reader_init(&r, cc_view_schemas(batch), value);
        if (cc_read(&r, &it) != 1 || it.kind != CC_ITEM_STRING) return false;
        text = it.v.bytes;
    }
    if (text.len < 7 || memcmp(text.ptr, "errant:", 7) != 0) return false;
    *reason = (cc_bytes){text.ptr + 7, text.len - 7};
    return true;
}

static cc_status put(const cc_view *batch) {
    size_t cur = SIZE_MAX; /* the partition of the current run */
    int64_t next = -1;
    run.len = 0;
    for (size_t i = 0; i < cc_view_len(batch); i++) {
        cc_bytes topic = cc_view_topic(batch, i);
        int32_t partition = cc_view_partition(batch, i);
        int64_t offset = cc_view_offset(batch, i);
        size_t k = (size_t)(find_or_add(topic, partition) - parts);
        if (k != cur) {
            if (cur != SIZE_MAX) {
                cc_status st = write_run(cur, next);
                if (st) return st;
            }
            cur = k;
            next = parts[k].next;
        }
        if (next >= 0 && offset < next) continue; /* redelivered: already written */
        cc_data value = cc_view_value(batch, i);
        /* A record this sink cannot write goes to the errant record reporter
         * (the dead letter queue); it counts as handled. */
        cc_bytes reason;
        if (errant(batch, value, &reason)) {
            if (cc_report_errant(i, (const char *)reason.ptr, reason.len) != CC_ERRANT_REPORTED)
                return cc_error_fatal("the record at topic %.*s partition %" PRId32 " offset %" PRId64
                                      " could not be reported errant: %s",
                                      (int)topic.len, (const char *)topic.ptr, partition, offset, cc_errant_message());
            next = offset + 1;
            continue;
        }
        if (value.null) {
            /* a tombstone: an empty line */
        } else if (value.schema == CC_RAW) {
            put_bytes(&run, value.ptr, value.len);
        } else {
            cc_reader r;
            cc_item it;
            cc_reader_init(&r, cc_view_schemas(batch), value);
            int got = cc_read(&r, &it);
            if (got == 1) got = render(&r, &it, &run);
            if (got == 1) got = cc_read(&r, &it) == 0 ? 1 : -1;
            if (got != 1)
                return cc_error_fatal("the record at topic %.*s partition %" PRId32 " offset %" PRId64
                                      " has a malformed value: %s",
                                      (int)topic.len, (const char *)topic.ptr, partition, offset, cc_reader_error(&r));
        }
        put_bytes(&run, "\n", 1);
        next = offset + 1;
    }
    return cur == SIZE_MAX ? CC_OK : write_run(cur, next);
}

/* Write `content` to `path` atomically: a temporary file, synced, renamed
 * over it. */
static cc_status write_atomically(const char *path, const char *content) {
    size_t n = strlen(path) + 5;
    char *tmp = malloc(n);
    snprintf(tmp, n, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return io_error(errno, "cannot create", tmp);
    if (write_all(fd, (const uint8_t *)content, strlen(content)) || fsync(fd) != 0) {
        int e = errno;
        close(fd);
        return io_error(e, "cannot write", tmp);
    }
    close(fd);
    if (rename(tmp, path) != 0) return io_error(errno, "cannot rename over the state file", tmp);
    free(tmp);
    return CC_OK;
}

static cc_status flush(const cc_topic_partition_offset *offsets, size_t len) {
    (void)offsets;
    (void)len;
    for (size_t i = 0; i < nparts; i++) {
        part *p = &parts[i];
        if (!p->dirty) continue;
        cc_status s = open_data(p); /* none yet when every record was reported */
        if (s) return s;
        struct stat st;
        if (fsync(p->fd) != 0 || fstat(p->fd, &st) != 0) {
            int e = errno;
            return io_error(e, "cannot sync", path_of(p->topic, p->partition, ".txt"));
        }
        char content[48];
        snprintf(content, sizeof content, "%" PRId64 " %lld", p->next, (long long)st.st_size);
        char *state = path_of(p->topic, p->partition, ".offset");
        s = write_atomically(state, content);
        free(state);
        if (s) return s;
        p->dirty = false;
    }
    return CC_OK;
}

static cc_status close_partitions(const cc_topic_partition *tps, size_t len) {
    for (size_t i = 0; i < len; i++) {
        part *p = find(cc_str(tps[i].topic), tps[i].partition);
        if (p) release(p);
    }
    return CC_OK;
}

static void stop(void) {
    release_all();
    free(directory);
    directory = NULL;
}

const copycat_sink_t copycat_sink = {
    .name = "file-sink",
    .version = "0.1.0",
    .description = "Appends record values to <directory>/<topic>-<partition>.txt, exactly once",
    .config_def = KEYS,
    .config_def_len = CC_COUNT(KEYS),
    .validate = validate,
    .start = start,
    .open = open_partitions,
    .put = put,
    .flush = flush,
    .close = close_partitions,
    .stop = stop,
};
