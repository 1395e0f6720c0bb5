/*
 * file-sink: appends each record's value and "\n" to
 * <directory>/<topic>-<partition>.txt and keeps its own offsets in
 * <directory>/<topic>-<partition>.offset ("<next-offset> <file-length>"),
 * written atomically on every flush. `open` truncates the data file to the
 * flushed length and resumes there, so the output is exactly-once whatever
 * the consumer group's offsets say. A record whose value starts with
 * "errant:" is not written: it goes to the errant record reporter (the
 * connector's dead letter queue), cc_report_errant(). Behaviour:
 * examples/SPEC.md.
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

static part *find(const char *topic, int32_t partition) {
    for (size_t i = 0; i < nparts; i++)
        if (parts[i].partition == partition && strcmp(parts[i].topic, topic) == 0) return &parts[i];
    return NULL;
}

static part *find_or_add(const char *topic, int32_t partition) {
    part *p = find(topic, partition);
    if (p) return p;
    parts = realloc(parts, (nparts + 1) * sizeof *parts);
    p = &parts[nparts++];
    p->topic = strdup(topic);
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
        part *old = find(tps[i].topic, tps[i].partition);
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

        part *p = find_or_add(tps[i].topic, tps[i].partition);
        p->next = next;
        cc_offsets_add(resume, tps[i].topic, tps[i].partition, (int64_t)next);
    }
    return CC_OK;
}

/* The bytes of one run of records of one partition, written in one go. */
static uint8_t *run;
static size_t run_len, run_cap;

static void run_append(const uint8_t *data, size_t len) {
    if (run_len + len > run_cap) {
        run_cap = 2 * (run_len + len) + 4096;
        run = realloc(run, run_cap);
    }
    if (len) memcpy(run + run_len, data, len);
    run_len += len;
}

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
    if (run_len == 0) { /* nothing to write, but reported records advance */
        if (next > p->next) {
            p->next = next;
            p->dirty = true;
        }
        return CC_OK;
    }
    st = open_data(p);
    if (st) {
        run_len = 0;
        return st;
    }
    struct stat before;
    int e = fstat(p->fd, &before) == 0 ? 0 : errno;
    if (e == 0 && write_all(p->fd, run, run_len) != CC_OK) {
        e = errno;
        (void)ftruncate(p->fd, before.st_size);
    }
    if (e) st = io_error(e, "cannot append to", path_of(p->topic, p->partition, ".txt"));
    else {
        p->next = next;
        p->dirty = true;
    }
    run_len = 0;
    return st;
}

static cc_status put(const cc_sink_record *records, size_t len) {
    size_t cur = SIZE_MAX; /* the partition of the current run */
    int64_t next = -1;
    run_len = 0;
    for (size_t i = 0; i < len; i++) {
        const cc_sink_record *r = &records[i];
        size_t k = (size_t)(find_or_add(r->topic, r->partition) - parts);
        if (k != cur) {
            if (cur != SIZE_MAX) {
                cc_status st = write_run(cur, next);
                if (st) return st;
            }
            cur = k;
            next = parts[k].next;
        }
        if (next >= 0 && r->offset < next) continue; /* redelivered: already written */
        /* A record this sink cannot write goes to the errant record reporter
         * (the dead letter queue); it counts as handled. */
        if (r->value.len >= 7 && memcmp(r->value.ptr, "errant:", 7) == 0) {
            if (cc_report_errant(i, (const char *)r->value.ptr + 7, r->value.len - 7) != CC_ERRANT_REPORTED)
                return cc_error_fatal("the record at topic %s partition %" PRId32 " offset %" PRId64
                                      " could not be reported errant: %s",
                                      r->topic, r->partition, r->offset, cc_errant_message());
            next = r->offset + 1;
            continue;
        }
        run_append(r->value.ptr, r->value.len); /* no value: an empty line */
        run_append((const uint8_t *)"\n", 1);
        next = r->offset + 1;
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
        part *p = find(tps[i].topic, tps[i].partition);
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
