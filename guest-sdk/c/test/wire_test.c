/*
 * wire_test.c: unit tests of the C SDK's batch builder, value writer,
 * schema table, views and reader, byte for byte against the layout and
 * value encoding of wit/connector@0.3.0/batch.wit. Native (no WebAssembly):
 *
 *     guest-sdk/c/test/run.sh     (gcc or cc; run by guest-sdk/c/build.sh --test)
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        checks++;                                                                   \
        if (!(cond)) {                                                              \
            failures++;                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                           \
    } while (0)

static void hex(const char *what, const uint8_t *p, size_t n) {
    fprintf(stderr, "  %s (%zu):", what, n);
    for (size_t i = 0; i < n; i++) fprintf(stderr, " %02x", p[i]);
    fprintf(stderr, "\n");
}

#define CHECK_BYTES(got, got_len, ...)                                                      \
    do {                                                                                    \
        static const uint8_t want_[] = {__VA_ARGS__};                                       \
        checks++;                                                                           \
        if ((got_len) != sizeof want_ || memcmp((got), want_, sizeof want_) != 0) {         \
            failures++;                                                                     \
            fprintf(stderr, "%s:%d: bytes differ\n", __FILE__, __LINE__);                   \
            hex("got ", (got), (got_len));                                                  \
            hex("want", want_, sizeof want_);                                               \
        }                                                                                   \
    } while (0)

/* The bytes of record `i`'s value in a built batch. */
static const uint8_t *value_bytes(const cc_batch *b, size_t i, size_t *len) {
    size_t at = 0;
    for (size_t r = 0; r < i; r++) {
        at += b->key_lengths[r] > 0 ? (size_t)b->key_lengths[r] : 0;
        at += b->value_lengths[r] > 0 ? (size_t)b->value_lengths[r] : 0;
        /* (the tests that call this write no headers) */
    }
    at += b->key_lengths[i] > 0 ? (size_t)b->key_lengths[i] : 0;
    *len = b->value_lengths[i] > 0 ? (size_t)b->value_lengths[i] : 0;
    return b->data + at;
}

static void test_raw_layout(void) {
    cc__schemas_reset();
    cc_batch b;
    cc__batch_init(&b, CC__BATCH_SOURCE, 0, 0);
    cc_batch_add(&b);
    cc_batch_key_str(&b, "k0");
    cc_batch_value_begin(&b, CC_RAW);
    cc_batch_append_i64(&b, -42);
    cc_batch_append_fill(&b, '.', 5 - cc_batch_field_len(&b));
    cc_batch_add(&b); /* no key, a tombstone, a header */
    cc_batch_header(&b, "h", "v", 1);
    cc_batch_header_null(&b, "n");
    cc_batch_topic(&b, "other");
    cc_batch_add(&b);
    cc_batch_value_str(&b, "");
    cc_batch_partition(&b, 3);
    cc_batch_timestamp(&b, 1700000000000);
    cc_batch_position(&b, "{\"s\":0}", "{\"seq\":1}");
    cc_batch_position(&b, "{\"s\":1}", "{\"seq\":7}");
    cc_batch_position(&b, "{\"s\":0}", "{\"seq\":2}");
    cc__batch_finish(&b);
    CHECK(cc_batch_error(&b) == NULL);
    CHECK(b.n == 3);
    CHECK_BYTES(b.data, b.len, 'k', '0', '-', '4', '2', '.', '.', 'h', 'v', 'n');
    CHECK(b.key_lengths[0] == 2 && b.key_lengths[1] == -1 && b.key_lengths[2] == -1);
    CHECK(b.value_lengths[0] == 5 && b.value_lengths[1] == -1 && b.value_lengths[2] == 0);
    CHECK(b.header_counts && b.header_counts[0] == 0 && b.header_counts[1] == 2 && b.header_counts[2] == 0);
    CHECK(b.nh == 2 && b.header_key_lengths[0] == 1 && b.header_value_lengths[0] == 1 &&
          b.header_key_lengths[1] == 1 && b.header_value_lengths[1] == -1);
    CHECK(b.header_schemas == NULL && b.key_schemas == NULL && b.value_schemas == NULL);
    CHECK(b.topic_indices && b.topic_indices[0] == -1 && b.topic_indices[1] == 0 && b.topic_indices[2] == -1);
    CHECK(b.ntopics == 1 && strcmp(b.topics[0], "other") == 0);
    CHECK(b.partitions && b.partitions[0] == -1 && b.partitions[1] == -1 && b.partitions[2] == 3);
    CHECK(b.timestamps && b.timestamps[0] == -1 && b.timestamps[2] == 1700000000000);
    CHECK(b.npositions == 2 && strcmp(b.positions[0], "{\"s\":0}") == 0 && strcmp(b.positions[1], "{\"seq\":2}") == 0 &&
          strcmp(b.positions[3], "{\"seq\":7}") == 0);
    CHECK(b.any_typed == false);
    cc__batch_free(&b);
}

static void test_growth(void) {
    /* Past the initial capacities: every record intact. */
    cc_batch b;
    cc__batch_init(&b, CC__BATCH_SOURCE, 1, 1);
    for (int i = 0; i < 5000; i++) {
        cc_batch_add(&b);
        cc_batch_key_begin(&b, CC_RAW);
        cc_batch_append_str(&b, "stream-0:");
        cc_batch_append_u64(&b, (uint64_t)i);
        cc_batch_value_begin(&b, CC_RAW);
        cc_batch_append_u64(&b, (uint64_t)i);
        cc_batch_append_fill(&b, '.', 100 - cc_batch_field_len(&b));
    }
    cc__batch_finish(&b);
    CHECK(b.n == 5000 && cc_batch_error(&b) == NULL);
    size_t len;
    const uint8_t *v = value_bytes(&b, 4321, &len);
    CHECK(len == 100 && memcmp(v, "4321....", 8) == 0 && v[99] == '.');
    CHECK(b.key_lengths[4321] == (int32_t)strlen("stream-0:4321"));
    CHECK(memcmp(v - 13, "stream-0:4321", 13) == 0);
    cc__batch_free(&b);
}

static cc_schema count_schema(void) {
    cc_field fields[] = {
        {"stream", cc_schema_of(CC_STRING, false)},
        {"seq", cc_schema_of(CC_INT64, false)},
        {"even", cc_schema_of(CC_BOOLEAN, false)},
        {"note", cc_schema_of(CC_STRING, true)},
    };
    return cc_schema_struct("copycat.examples.Count", false, fields, CC_COUNT(fields));
}

static void test_typed_struct(void) {
    cc__schemas_reset();
    cc_schema key = cc_schema_of(CC_STRING, false);
    cc_schema count = count_schema();
    CHECK(key == 0);
    CHECK(count == 4); /* string, int64, boolean, optional string, struct; "stream" shares node 0 */
    CHECK(cc__schemas.len == 5);
    CHECK(count_schema() == count); /* equal schemas share nodes */
    const cc_schema_node *n = cc_schema_get(count);
    CHECK(n && n->type == CC_STRUCT && !n->optional && n->has_name && cc_bytes_eq(n->name, "copycat.examples.Count"));
    CHECK(n && n->children_len == 4 && n->children[0] == 0 && n->children[1] == 1 && n->children[2] == 2 &&
          n->children[3] == 3);
    CHECK(n && cc_bytes_eq(n->field_names[3], "note"));
    CHECK(cc_schema_get(3)->optional && cc_schema_get(3)->type == CC_STRING);

    cc_batch b;
    cc__batch_init(&b, CC__BATCH_SOURCE, 0, 0);
    for (int64_t seq = 4; seq <= 5; seq++) {
        cc_batch_add(&b);
        cc_batch_key_begin(&b, key);
        cc_write_str(&b, "stream-0:4");
        cc_batch_value_begin(&b, count);
        cc_write_struct_begin(&b);
        cc_write_str(&b, "stream-0");
        cc_write_int64(&b, seq);
        cc_write_bool(&b, seq % 2 == 0);
        if (seq % 2 == 0) cc_write_str(&b, "n4");
        else cc_write_null(&b);
        cc_write_struct_end(&b);
    }
    cc_batch_add(&b); /* no key, no value: raw nulls in the schema columns */
    cc__batch_finish(&b);
    CHECK(cc_batch_error(&b) == NULL);
    CHECK(b.any_typed);
    CHECK(b.n == 3 && b.key_schemas[2] == CC_RAW && b.value_schemas[2] == CC_RAW && b.value_lengths[2] == -1);
    CHECK(b.key_schemas && b.key_schemas[0] == key && b.value_schemas && b.value_schemas[1] == count);
    size_t len;
    const uint8_t *v = value_bytes(&b, 0, &len);
    CHECK_BYTES(v, len, 8, 0, 0, 0, 's', 't', 'r', 'e', 'a', 'm', '-', '0', 4, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 0, 0, 0,
                'n', '4');
    v = value_bytes(&b, 1, &len);
    CHECK_BYTES(v, len, 8, 0, 0, 0, 's', 't', 'r', 'e', 'a', 'm', '-', '0', 5, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    CHECK_BYTES(b.data, (size_t)b.key_lengths[0], 10, 0, 0, 0, 's', 't', 'r', 'e', 'a', 'm', '-', '0', ':', '4');
    cc__batch_free(&b);
}

static void test_primitives_and_containers(void) {
    cc__schemas_reset();
    cc_schema i8 = cc_schema_of(CC_INT8, false), i16 = cc_schema_of(CC_INT16, false);
    cc_schema oi32 = cc_schema_of(CC_INT32, true), f32 = cc_schema_of(CC_FLOAT32, false);
    cc_schema f64 = cc_schema_of(CC_FLOAT64, false), by = cc_schema_of(CC_BYTES, false);
    cc_schema arr = cc_schema_array(oi32, false);
    cc_schema map = cc_schema_map(cc_schema_of(CC_STRING, false), i16, true);
    cc_batch b;
    cc__batch_init(&b, CC__BATCH_SOURCE, 0, 0);
#define ONE(schema, ...)              \
    cc_batch_add(&b);                 \
    cc_batch_value_begin(&b, schema); \
    __VA_ARGS__;
    ONE(i8, cc_write_int8(&b, -2))
    ONE(i16, cc_write_int16(&b, 0x1234))
    ONE(oi32, cc_write_null(&b))
    ONE(oi32, cc_write_int32(&b, -1))
    ONE(f32, cc_write_float32(&b, 1.5f))
    ONE(f64, cc_write_float64(&b, -2.0))
    ONE(by, cc_write_bytes(&b, "\x00\xff", 2))
    ONE(arr, cc_write_array_begin(&b); cc_write_int32(&b, 7); cc_write_null(&b); cc_write_array_end(&b))
    ONE(map, cc_write_map_begin(&b); cc_write_str(&b, "a"); cc_write_int16(&b, 1); cc_write_map_end(&b))
    ONE(map, cc_write_null(&b))
    ONE(arr, cc_write_array_begin(&b); cc_write_array_end(&b))
    cc__batch_finish(&b);
    CHECK(cc_batch_error(&b) == NULL);
    size_t len;
    const uint8_t *v;
    v = value_bytes(&b, 0, &len);
    CHECK_BYTES(v, len, 0xfe);
    v = value_bytes(&b, 1, &len);
    CHECK_BYTES(v, len, 0x34, 0x12);
    v = value_bytes(&b, 2, &len);
    CHECK_BYTES(v, len, 0);
    v = value_bytes(&b, 3, &len);
    CHECK_BYTES(v, len, 1, 0xff, 0xff, 0xff, 0xff);
    v = value_bytes(&b, 4, &len);
    CHECK_BYTES(v, len, 0x00, 0x00, 0xc0, 0x3f);
    v = value_bytes(&b, 5, &len);
    CHECK_BYTES(v, len, 0, 0, 0, 0, 0, 0, 0x00, 0xc0);
    v = value_bytes(&b, 6, &len);
    CHECK_BYTES(v, len, 2, 0, 0, 0, 0x00, 0xff);
    v = value_bytes(&b, 7, &len);
    CHECK_BYTES(v, len, 2, 0, 0, 0, 1, 7, 0, 0, 0, 0);
    v = value_bytes(&b, 8, &len);
    CHECK_BYTES(v, len, 1, 1, 0, 0, 0, 1, 0, 0, 0, 'a', 1, 0);
    v = value_bytes(&b, 9, &len);
    CHECK_BYTES(v, len, 0);
    v = value_bytes(&b, 10, &len);
    CHECK_BYTES(v, len, 0, 0, 0, 0);
    cc__batch_free(&b);
}

static void test_schemaless(void) {
    cc__schemas_reset();
    cc_batch b;
    cc__batch_init(&b, CC__BATCH_SOURCE, 0, 0);
    cc_batch_add(&b);
    cc_batch_value_begin(&b, CC_SCHEMALESS);
    cc_write_map_begin(&b);
    cc_write_str(&b, "a");
    cc_write_array_begin(&b);
    cc_write_int32(&b, 1);
    cc_write_null(&b);
    cc_write_array_end(&b);
    cc_write_str(&b, "b");
    cc_write_bool(&b, true);
    cc_write_map_end(&b);
    cc_batch_add(&b);
    cc_batch_value_begin(&b, CC_SCHEMALESS);
    cc_write_int64(&b, 1);
    cc__batch_finish(&b);
    CHECK(cc_batch_error(&b) == NULL);
    CHECK(b.value_schemas && b.value_schemas[0] == CC_SCHEMALESS);
    size_t len;
    const uint8_t *v = value_bytes(&b, 0, &len);
    CHECK_BYTES(v, len, 11, 2, 0, 0, 0, 8, 1, 0, 0, 0, 'a', 10, 2, 0, 0, 0, 3, 1, 0, 0, 0, 0, 8, 1, 0, 0, 0, 'b', 7, 1);
    v = value_bytes(&b, 1, &len);
    CHECK_BYTES(v, len, 4, 1, 0, 0, 0, 0, 0, 0, 0);
    cc__batch_free(&b);
}

static void test_decimal_and_logical(void) {
    cc__schemas_reset();
    cc_schema dec = cc_schema_decimal(2, false);
    const cc_schema_node *n = cc_schema_get(dec);
    CHECK(n->type == CC_BYTES && cc_bytes_eq(n->name, CC_DECIMAL_NAME) && n->has_version && n->version == 1);
    CHECK(n->parameters_len == 1 && cc_bytes_eq(n->parameters[0], "scale") && cc_bytes_eq(n->parameters[1], "2"));
    cc_schema date = cc_schema_date(true);
    CHECK(cc_schema_get(date)->type == CC_INT32 && cc_schema_get(date)->optional);
    static const int64_t in[] = {-12345, 0, 127, 128, -128, -129, INT64_MIN};
    cc_batch b;
    cc__batch_init(&b, CC__BATCH_SOURCE, 0, 0);
    for (size_t i = 0; i < CC_COUNT(in); i++) {
        cc_batch_add(&b);
        cc_batch_value_begin(&b, dec);
        cc_write_decimal(&b, in[i]);
    }
    cc_batch_add(&b);
    cc_batch_value_begin(&b, date);
    cc_write_int32(&b, 19782);
    cc__batch_finish(&b);
    CHECK(cc_batch_error(&b) == NULL);
    size_t len;
    const uint8_t *v;
    v = value_bytes(&b, 0, &len);
    CHECK_BYTES(v, len, 2, 0, 0, 0, 0xcf, 0xc7);
    v = value_bytes(&b, 1, &len);
    CHECK_BYTES(v, len, 1, 0, 0, 0, 0x00);
    v = value_bytes(&b, 2, &len);
    CHECK_BYTES(v, len, 1, 0, 0, 0, 0x7f);
    v = value_bytes(&b, 3, &len);
    CHECK_BYTES(v, len, 2, 0, 0, 0, 0x00, 0x80);
    v = value_bytes(&b, 4, &len);
    CHECK_BYTES(v, len, 1, 0, 0, 0, 0x80);
    v = value_bytes(&b, 5, &len);
    CHECK_BYTES(v, len, 2, 0, 0, 0, 0xff, 0x7f);
    v = value_bytes(&b, 6, &len);
    CHECK_BYTES(v, len, 8, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0);
    v = value_bytes(&b, 7, &len);
    CHECK_BYTES(v, len, 1, 0x46, 0x4d, 0, 0);
    cc__batch_free(&b);
}

/* Each mistake is kept (the first one), with the record named. */
static void expect_error(void (*write)(cc_batch *), const char *needle) {
    cc_batch b;
    cc__batch_init(&b, CC__BATCH_SOURCE, 0, 0);
    write(&b);
    cc__batch_finish(&b);
    const char *e = cc_batch_error(&b);
    CHECK(e != NULL);
    if (e && !strstr(e, needle)) {
        failures++;
        fprintf(stderr, "error '%s' lacks '%s'\n", e, needle);
    }
    cc__batch_free(&b);
}

static void w_wrong_type(cc_batch *b) {
    cc_batch_add(b);
    cc_batch_value_begin(b, count_schema());
    cc_write_struct_begin(b);
    cc_write_str(b, "s");
    cc_write_str(b, "not a number");
}
static void w_required_null(cc_batch *b) {
    cc_batch_add(b);
    cc_batch_value_begin(b, cc_schema_of(CC_INT64, false));
    cc_write_null(b);
}
static void w_short_struct(cc_batch *b) {
    cc_batch_add(b);
    cc_batch_value_begin(b, count_schema());
    cc_write_struct_begin(b);
    cc_write_str(b, "s");
    cc_write_struct_end(b);
}
static void w_unfinished(cc_batch *b) {
    cc_batch_add(b);
    cc_batch_value_begin(b, CC_SCHEMALESS);
    cc_write_array_begin(b);
}
static void w_key_after_value(cc_batch *b) {
    cc_batch_add(b);
    cc_batch_value_str(b, "v");
    cc_batch_key_str(b, "k");
}
static void w_struct_schemaless(cc_batch *b) {
    cc_batch_add(b);
    cc_batch_value_begin(b, CC_SCHEMALESS);
    cc_write_struct_begin(b);
}
static void w_append_typed(cc_batch *b) {
    cc_batch_add(b);
    cc_batch_value_begin(b, CC_SCHEMALESS);
    cc_batch_append(b, "x", 1);
}
static void w_bad_schema(cc_batch *b) {
    cc_batch_add(b);
    cc_batch_value_begin(b, 999);
}
static void w_deep(cc_batch *b) {
    cc_batch_add(b);
    cc_batch_value_begin(b, CC_SCHEMALESS);
    for (int i = 0; i < 101; i++) cc_write_array_begin(b);
    cc_write_null(b);
}

static void test_mistakes(void) {
    cc__schemas_reset();
    expect_error(w_wrong_type, "record 0 of the batch: a string where the schema (field 'seq') has an int64");
    expect_error(w_required_null, "null for a required int64");
    expect_error(w_short_struct, "ended after 1 of its 4 fields");
    expect_error(w_unfinished, "not a complete value");
    expect_error(w_key_after_value, "a key after");
    expect_error(w_struct_schemaless, "structs need a schema");
    expect_error(w_append_typed, "no raw key");
    expect_error(w_bad_schema, "not a schema of this batch");
    expect_error(w_deep, "deeper than 100");
    CHECK(cc_schema_array(77, false) == CC_SCHEMA_INVALID);
    CHECK(strstr(cc_error_message(), "not a schema") != NULL);
}

/* A view of a built batch, as the host would pass it to a sink. */
typedef struct {
    cc_view v;
    cc_bytes topics[1];
    uint32_t *ti;
    int64_t *offsets, *ts;
    int32_t *parts;
} host_view;

static void view_of(host_view *h, cc_batch *b) {
    memset(h, 0, sizeof *h);
    h->topics[0] = cc_str("t");
    h->ti = calloc(b->n + 1, sizeof *h->ti);
    h->offsets = calloc(b->n + 1, sizeof *h->offsets);
    h->ts = calloc(b->n + 1, sizeof *h->ts);
    h->parts = calloc(b->n + 1, sizeof *h->parts);
    for (size_t i = 0; i < b->n; i++) {
        h->offsets[i] = 100 + (int64_t)i;
        h->ts[i] = -1;
    }
    cc_view *v = &h->v;
    v->data = b->data;
    v->data_len = b->len;
    v->n = b->n;
    v->key_lengths = b->key_lengths;
    v->value_lengths = b->value_lengths;
    v->topics = h->topics;
    v->ntopics = 1;
    v->topic_indices = h->ti;
    v->partitions = h->parts;
    v->offsets = h->offsets;
    v->timestamps = h->ts;
    v->header_counts = b->header_counts;
    v->header_key_lengths = b->header_key_lengths;
    v->header_value_lengths = b->header_value_lengths;
    v->nh = b->nh;
    v->key_schemas = b->key_schemas;
    v->value_schemas = b->value_schemas;
    v->header_schemas = b->header_schemas;
    v->schemas = (cc_schemas){cc__schemas.nodes, cc__schemas.len};
}

static void host_view_free(host_view *h) {
    cc__view_free(&h->v);
    free(h->ti);
    free(h->offsets);
    free(h->ts);
    free(h->parts);
}

static void test_views_and_reader(void) {
    cc__schemas_reset();
    cc_schema count = count_schema();
    cc_batch b;
    cc__batch_init(&b, CC__BATCH_SOURCE, 0, 0);
    cc_batch_add(&b);
    cc_batch_key_str(&b, "k");
    cc_batch_value_begin(&b, count);
    cc_write_struct_begin(&b);
    cc_write_str(&b, "stream-0");
    cc_write_int64(&b, -3);
    cc_write_bool(&b, false);
    cc_write_null(&b);
    cc_write_struct_end(&b);
    cc_batch_header(&b, "h1", "x", 1);
    cc_batch_header_begin(&b, "h2", CC_SCHEMALESS);
    cc_write_map_begin(&b);
    cc_write_str(&b, "k");
    cc_write_float64(&b, 0.5);
    cc_write_map_end(&b);
    cc_batch_add(&b);
    cc_batch_value_str(&b, "errant:bad");
    cc__batch_finish(&b);
    CHECK(cc_batch_error(&b) == NULL);

    host_view h;
    view_of(&h, &b);
    CHECK(cc__view_init(&h.v) == CC_OK);
    const cc_view *v = &h.v;
    CHECK(cc_view_len(v) == 2);
    cc_data k = cc_view_key(v, 0);
    CHECK(!k.null && k.schema == CC_RAW && k.len == 1 && k.ptr[0] == 'k');
    CHECK(cc_view_key(v, 1).null);
    CHECK(cc_bytes_eq(cc_view_topic(v, 1), "t") && cc_view_offset(v, 1) == 101 && cc_view_timestamp(v, 0) == -1);
    cc_data raw = cc_view_value(v, 1);
    CHECK(raw.schema == CC_RAW && raw.len == 10 && memcmp(raw.ptr, "errant:bad", 10) == 0);
    CHECK(cc_view_header_count(v, 0) == 2 && cc_view_header_count(v, 1) == 0);
    CHECK(cc_bytes_eq(cc_view_header_key(v, 0, 1), "h2"));
    cc_data hv = cc_view_header_value(v, 0, 0);
    CHECK(hv.len == 1 && hv.ptr[0] == 'x');

    /* The typed value, item by item. */
    cc_reader r;
    cc_item it;
    cc_reader_init(&r, cc_view_schemas(v), cc_view_value(v, 0));
    CHECK(cc_read(&r, &it) == 1 && it.kind == CC_ITEM_STRUCT && it.v.count == 4 && it.schema == count);
    CHECK(cc_read(&r, &it) == 1 && it.kind == CC_ITEM_STRING && cc_bytes_eq(it.field, "stream") &&
          cc_bytes_eq(it.v.bytes, "stream-0"));
    CHECK(cc_read(&r, &it) == 1 && it.kind == CC_ITEM_INT64 && it.v.i == -3 && cc_bytes_eq(it.field, "seq"));
    CHECK(cc_read(&r, &it) == 1 && it.kind == CC_ITEM_BOOLEAN && !it.v.b);
    CHECK(cc_read(&r, &it) == 1 && it.kind == CC_ITEM_NULL && cc_bytes_eq(it.field, "note"));
    CHECK(cc_read(&r, &it) == 1 && it.kind == CC_ITEM_END && it.v.container == CC_ITEM_STRUCT);
    CHECK(cc_read(&r, &it) == 0);

    /* The schemaless header. */
    cc_reader_init(&r, cc_view_schemas(v), cc_view_header_value(v, 0, 1));
    CHECK(cc_read(&r, &it) == 1 && it.kind == CC_ITEM_MAP && it.v.count == 1 && it.schema == CC_SCHEMALESS);
    CHECK(cc_read(&r, &it) == 1 && it.kind == CC_ITEM_STRING && it.map_key);
    CHECK(cc_read(&r, &it) == 1 && it.kind == CC_ITEM_FLOAT64 && it.v.f == 0.5 && !it.map_key);
    CHECK(cc_read(&r, &it) == 1 && it.kind == CC_ITEM_END && it.v.container == CC_ITEM_MAP);
    CHECK(cc_read(&r, &it) == 0);

    /* Copying items into another batch gives the same bytes. */
    cc_batch out;
    cc__batch_init(&out, CC__BATCH_SOURCE, 0, 0);
    cc_batch_add(&out);
    cc_batch_value_begin(&out, count);
    cc_reader_init(&r, cc_view_schemas(v), cc_view_value(v, 0));
    int got;
    while ((got = cc_read(&r, &it)) == 1) cc_write_item(&out, &it);
    CHECK(got == 0);
    cc__batch_finish(&out);
    cc_data orig = cc_view_value(v, 0);
    CHECK(out.error == NULL && out.len == orig.len && memcmp(out.data, orig.ptr, orig.len) == 0);
    cc__batch_free(&out);

    /* Damaged bytes are errors, not crashes. */
    cc_data cut = cc_view_value(v, 0);
    cut.len -= 3;
    cc_reader_init(&r, cc_view_schemas(v), cut);
    while ((got = cc_read(&r, &it)) == 1) {
    }
    CHECK(got == -1 && strstr(cc_reader_error(&r), "ends") != NULL);
    static const uint8_t trailing[] = {4, 1, 0, 0, 0, 0, 0, 0, 0, 9};
    cc_reader_init(&r, cc_view_schemas(v), (cc_data){CC_SCHEMALESS, false, trailing, sizeof trailing});
    CHECK(cc_read(&r, &it) == 1 && it.kind == CC_ITEM_INT64 && it.v.i == 1);
    CHECK(cc_read(&r, &it) == -1 && strstr(cc_reader_error(&r), "left after") != NULL);
    static const uint8_t huge[] = {10, 0xff, 0xff, 0xff, 0xff};
    cc_reader_init(&r, cc_view_schemas(v), (cc_data){CC_SCHEMALESS, false, huge, sizeof huge});
    while ((got = cc_read(&r, &it)) == 1) {
    }
    CHECK(got == -1);
    cc_reader_init(&r, cc_view_schemas(v), (cc_data){CC_SCHEMALESS, true, NULL, 0});
    CHECK(cc_read(&r, &it) == 1 && it.kind == CC_ITEM_NULL);
    CHECK(cc_read(&r, &it) == 0);
    host_view_free(&h);

    /* A view whose lengths overrun the data is refused. */
    b.value_lengths[1] = 50;
    view_of(&h, &b);
    CHECK(cc__view_init(&h.v) == CC_ERR_FATAL && strstr(cc_error_message(), "malformed batch") != NULL);
    host_view_free(&h);
    cc__batch_free(&b);
}

static void test_transform_copy(void) {
    cc__schemas_reset();
    cc_schema s = cc_schema_of(CC_STRING, true);
    cc_batch in;
    cc__batch_init(&in, CC__BATCH_SOURCE, 0, 0);
    for (int i = 0; i < 3; i++) {
        cc_batch_add(&in);
        cc_batch_key_begin(&in, s);
        cc_write_str(&in, "key");
        cc_batch_value_begin(&in, s);
        cc_write_str(&in, i == 1 ? "abc" : "xyz");
        cc_batch_header(&in, "h", "v", 1);
    }
    cc__batch_finish(&in);
    host_view h;
    view_of(&h, &in);
    CHECK(cc__view_init(&h.v) == CC_OK);

    cc_batch out;
    cc__batch_init(&out, CC__BATCH_TRANSFORM, 0, 0);
    for (size_t i = 0; i < 3; i++) {
        if (i == 0) continue; /* dropped */
        cc_batch_add_from(&out, &h.v, i);
        cc_batch_key_copy(&out, &h.v, i);
        cc_batch_value_copy(&out, &h.v, i);
        cc_batch_headers_copy(&out, &h.v, i);
    }
    cc_batch_add_from(&out, &h.v, 0); /* origins may not go back */
    cc__batch_finish(&out);
    CHECK(out.error && strstr(out.error, "origins never decrease"));
    CHECK(out.origins[0] == 1 && out.origins[1] == 2 && out.offsets[0] == 101 && out.topic_indices[1] == 0);
    CHECK(out.len == 2 * (in.len / 3));
    CHECK(memcmp(out.data, in.data + in.len / 3, 2 * (in.len / 3)) == 0);
    CHECK(out.key_schemas[0] == s && out.value_schemas[1] == s && out.header_counts[1] == 1);
    cc__batch_free(&out);
    host_view_free(&h);
    cc__batch_free(&in);
}

/* Stand-ins for the world glue the SDK's world-neutral files call. */
void cc_log(cc_log_level level, const char *fmt, ...) {
    (void)level;
    (void)fmt;
}

int main(void) {
    test_raw_layout();
    test_growth();
    test_typed_struct();
    test_primitives_and_containers();
    test_schemaless();
    test_decimal_and_logical();
    test_mistakes();
    test_views_and_reader();
    test_transform_copy();
    cc__schemas_reset();
    if (failures) {
        fprintf(stderr, "wire_test: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("wire_test: all %d checks passed\n", checks);
    return 0;
}
