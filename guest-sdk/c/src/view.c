/*
 * view.c: read-only views of the batches the host passes (a sink's `put`,
 * a transform's `apply`) and the value reader (wit/connector@0.3.0/
 * batch.wit). World-neutral: the unit test compiles it natively.
 *
 * A view points into the batch as the canonical ABI lifted it into this
 * instance's memory: no record is copied. cc__view_init checks the columns
 * once per batch and indexes where each record starts.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Views                                                                */
/* ------------------------------------------------------------------ */

static cc_status bad(const char *fmt, ...) CC_PRINTF(1, 2);
static cc_status bad(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *m = cc__vformat(fmt, ap);
    va_end(ap);
    cc_status s = cc_error_fatal("malformed batch from the host: %s", m);
    free(m);
    return s;
}

static bool schema_in(const cc_view *v, int32_t s) {
    return s == CC_RAW || s == CC_SCHEMALESS || (s >= 0 && (size_t)s < v->schemas.len);
}

/* Bytes a length column entry takes (-1: none). */
static bool add_len(int32_t len, size_t *total) {
    if (len < -1) return false;
    if (len > 0) *total += (size_t)len;
    return true;
}

cc_status cc__view_init(cc_view *v) {
    v->starts = NULL;
    v->first_header = NULL;
    v->header_starts = NULL;
    size_t n = v->n;
    for (size_t i = 0; i < v->schemas.len; i++) {
        const cc_schema_node *node = &v->schemas.nodes[i];
        if ((int)node->type < 0 || node->type > CC_STRUCT) return bad("schema node %zu has type %d", i, (int)node->type);
        for (size_t c = 0; c < node->children_len; c++)
            if (node->children[c] >= i) return bad("schema node %zu refers to node %" PRIu32, i, node->children[c]);
        size_t want = node->type == CC_ARRAY ? 1 : node->type == CC_MAP ? 2 : node->type == CC_STRUCT ? node->children_len : 0;
        if (node->type == CC_STRUCT && node->children_len && !node->field_names)
            return bad("schema node %zu (struct) has not one field name per field", i);
        if (node->children_len != want) return bad("schema node %zu (%s) has %zu children", i, cc__type_name(node->type), node->children_len);
    }
    v->starts = cc__xmalloc((n + 1) * sizeof *v->starts);
    v->first_header = cc__xmalloc((n + 1) * sizeof *v->first_header);
    v->header_starts = cc__xmalloc((v->nh ? v->nh : 1) * sizeof *v->header_starts);
    size_t at = 0, h = 0;
    for (size_t i = 0; i < n; i++) {
        v->starts[i] = at;
        v->first_header[i] = h;
        if (!add_len(v->key_lengths[i], &at) || !add_len(v->value_lengths[i], &at))
            return bad("record %zu has a length below -1", i);
        if (v->topic_indices[i] >= v->ntopics)
            return bad("record %zu has topic index %" PRIu32 " of %zu topics", i, v->topic_indices[i], v->ntopics);
        if (v->key_schemas && !schema_in(v, v->key_schemas[i])) return bad("record %zu has key schema %" PRId32, i, v->key_schemas[i]);
        if (v->value_schemas && !schema_in(v, v->value_schemas[i]))
            return bad("record %zu has value schema %" PRId32, i, v->value_schemas[i]);
        size_t count = v->header_counts ? v->header_counts[i] : 0;
        if (count > v->nh - h) return bad("record %zu has %zu headers; the header columns hold %zu in all", i, count, v->nh);
        for (size_t j = 0; j < count; j++, h++) {
            v->header_starts[h] = at;
            at += v->header_key_lengths[h];
            if (!add_len(v->header_value_lengths[h], &at)) return bad("header %zu has a length below -1", h);
            if (v->header_schemas && !schema_in(v, v->header_schemas[h]))
                return bad("header %zu has schema %" PRId32, h, v->header_schemas[h]);
        }
        if (at > v->data_len) return bad("record %zu ends at byte %zu of %zu", i, at, v->data_len);
    }
    if (h != v->nh) return bad("the header columns hold %zu headers; the records have %zu", v->nh, h);
    if (at != v->data_len) return bad("the records take %zu bytes of its %zu", at, v->data_len);
    v->starts[n] = at;
    v->first_header[n] = h;
    return CC_OK;
}

void cc__view_free(cc_view *v) {
    free(v->starts);
    free(v->first_header);
    free(v->header_starts);
    v->starts = v->first_header = v->header_starts = NULL;
}

size_t cc_view_len(const cc_view *v) {
    return v->n;
}

static cc_data data_at(const uint8_t *base, size_t at, int32_t len, int32_t schema) {
    cc_data d = {schema, len < 0, len < 0 ? NULL : base + at, len < 0 ? 0 : (size_t)len};
    return d;
}

cc_data cc_view_key(const cc_view *v, size_t i) {
    if (i >= v->n) return (cc_data){CC_RAW, true, NULL, 0};
    return data_at(v->data, v->starts[i], v->key_lengths[i], v->key_schemas ? v->key_schemas[i] : CC_RAW);
}

cc_data cc_view_value(const cc_view *v, size_t i) {
    if (i >= v->n) return (cc_data){CC_RAW, true, NULL, 0};
    int32_t k = v->key_lengths[i];
    return data_at(v->data, v->starts[i] + (k > 0 ? (size_t)k : 0), v->value_lengths[i],
                   v->value_schemas ? v->value_schemas[i] : CC_RAW);
}

cc_bytes cc_view_topic(const cc_view *v, size_t i) {
    if (i >= v->n || !v->topics) return (cc_bytes){NULL, 0};
    return v->topics[v->topic_indices[i]];
}

int32_t cc_view_partition(const cc_view *v, size_t i) {
    return i < v->n ? v->partitions[i] : -1;
}

int64_t cc_view_offset(const cc_view *v, size_t i) {
    return i < v->n && v->offsets ? v->offsets[i] : -1;
}

int64_t cc_view_timestamp(const cc_view *v, size_t i) {
    return i < v->n && v->timestamps ? v->timestamps[i] : -1;
}

size_t cc_view_header_count(const cc_view *v, size_t i) {
    return i < v->n ? v->first_header[i + 1] - v->first_header[i] : 0;
}

cc_bytes cc_view_header_key(const cc_view *v, size_t i, size_t j) {
    if (j >= cc_view_header_count(v, i)) return (cc_bytes){NULL, 0};
    size_t h = v->first_header[i] + j;
    return (cc_bytes){v->data + v->header_starts[h], v->header_key_lengths[h]};
}

cc_data cc_view_header_value(const cc_view *v, size_t i, size_t j) {
    if (j >= cc_view_header_count(v, i)) return (cc_data){CC_RAW, true, NULL, 0};
    size_t h = v->first_header[i] + j;
    return data_at(v->data, v->header_starts[h] + v->header_key_lengths[h], v->header_value_lengths[h],
                   v->header_schemas ? v->header_schemas[h] : CC_RAW);
}

cc_schemas cc_view_schemas(const cc_view *v) {
    return v->schemas;
}

const cc_schema_node *cc_view_schema(const cc_view *v, cc_schema schema) {
    if (schema < 0 || (size_t)schema >= v->schemas.len) return NULL;
    return &v->schemas.nodes[schema];
}

/* ------------------------------------------------------------------ */
/* The reader                                                           */
/* ------------------------------------------------------------------ */

static int rfail(cc_reader *r, const char *fmt, ...) CC_PRINTF(2, 3);
static int rfail(cc_reader *r, const char *fmt, ...) {
    if (!r->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->error, sizeof r->error, fmt, ap);
        va_end(ap);
    }
    r->failed = true;
    return -1;
}

void cc_reader_init(cc_reader *r, cc_schemas table, cc_data data) {
    r->own_table = table;
    r->table = &r->own_table;
    r->p = data.ptr;
    r->end = data.ptr + data.len;
    r->failed = false;
    r->started = false;
    r->error[0] = '\0';
    r->depth = 1;
    r->stack[0].node = data.schema;
    r->stack[0].kind = 0;
    r->stack[0].left = 1;
    r->stack[0].index = 0;
    /* One value per byte, plus some (empty structs take no bytes). */
    r->budget = data.len + 4096;
    r->null = data.null;
    if (data.schema == CC_RAW) rfail(r, "raw bytes are not a typed value");
    else if (data.schema != CC_SCHEMALESS && (data.schema < 0 || (size_t)data.schema >= table.len))
        rfail(r, "schema %" PRId32 " is not in the table of %zu nodes", data.schema, table.len);
}

const char *cc_reader_error(const cc_reader *r) {
    return r->failed ? r->error : "";
}

static bool take(cc_reader *r, size_t n, const uint8_t **out) {
    if ((size_t)(r->end - r->p) < n) return false;
    *out = r->p;
    r->p += n;
    return true;
}

static uint64_t le(const uint8_t *p, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

int cc_read(cc_reader *r, cc_item *it) {
    if (r->failed) return -1;
    memset(it, 0, sizeof *it);
    if (r->null) { /* a null field: one null, then the end */
        if (r->started) return 0;
        r->started = true;
        it->kind = CC_ITEM_NULL;
        it->schema = r->stack[0].node;
        return 1;
    }
    r->started = true;
    typeof(r->stack[0]) *f = &r->stack[r->depth - 1];
    if (f->left == 0) {
        if (r->depth == 1) {
            if (r->p != r->end) return rfail(r, "%zu bytes left after the value", (size_t)(r->end - r->p));
            return 0;
        }
        r->depth--;
        it->kind = CC_ITEM_END;
        it->v.container = f->kind == 1 ? CC_ITEM_STRUCT : f->kind == 2 ? CC_ITEM_ARRAY : CC_ITEM_MAP;
        it->schema = f->node;
        return 1;
    }
    if (r->depth - 1 > CC__MAX_DEPTH) return rfail(r, "a value nested deeper than %d levels", CC__MAX_DEPTH);
    if (r->budget == 0) return rfail(r, "more values than its bytes can hold");
    r->budget--;
    int32_t node;
    const cc_schema_node *parent = f->node >= 0 ? &r->table->nodes[f->node] : NULL;
    switch (f->kind) {
    case 0: node = f->node; break;
    case 1:
        node = (int32_t)parent->children[f->index];
        it->field = parent->field_names ? parent->field_names[f->index] : (cc_bytes){(const uint8_t *)"", 0};
        break;
    case 2: node = parent ? (int32_t)parent->children[0] : CC_SCHEMALESS; break;
    default:
        node = parent ? (int32_t)parent->children[f->index % 2] : CC_SCHEMALESS;
        it->map_key = f->index % 2 == 0;
        break;
    }
    f->left--;
    f->index++;
    it->schema = node;
    const uint8_t *b;
    int type;
    const cc_schema_node *n = NULL;
    if (node == CC_SCHEMALESS) {
        if (!take(r, 1, &b)) return rfail(r, "the value ends before a tag");
        if (b[0] == 0) {
            it->kind = CC_ITEM_NULL;
            return 1;
        }
        if (b[0] > 11) return rfail(r, "unknown tag %u", b[0]);
        type = b[0] - 1;
    } else {
        if (node < 0 || (size_t)node >= r->table->len) return rfail(r, "schema node %" PRId32 " is not in the table", node);
        n = &r->table->nodes[node];
        type = n->type;
        if (n->optional) {
            if (!take(r, 1, &b)) return rfail(r, "the value ends before a presence byte");
            if (b[0] == 0) {
                it->kind = CC_ITEM_NULL;
                return 1;
            }
            if (b[0] != 1) return rfail(r, "presence byte %u (0 or 1)", b[0]);
        }
    }
    it->kind = (cc_item_kind)type;
    static const uint8_t size[] = {1, 2, 4, 8, 4, 8, 1};
    switch (type) {
    case CC_INT8:
    case CC_INT16:
    case CC_INT32:
    case CC_INT64: {
        size_t k = size[type];
        if (!take(r, k, &b)) return rfail(r, "the value ends inside a %s", cc__type_name(type));
        uint64_t u = le(b, k);
        if (k < 8 && (u >> (8 * k - 1)) & 1) u |= ~(uint64_t)0 << (8 * k); /* sign-extend */
        it->v.i = (int64_t)u;
        return 1;
    }
    case CC_FLOAT32: {
        if (!take(r, 4, &b)) return rfail(r, "the value ends inside a float32");
        uint32_t u = (uint32_t)le(b, 4);
        float x;
        memcpy(&x, &u, 4);
        it->v.f = x;
        return 1;
    }
    case CC_FLOAT64: {
        if (!take(r, 8, &b)) return rfail(r, "the value ends inside a float64");
        uint64_t u = le(b, 8);
        memcpy(&it->v.f, &u, 8);
        return 1;
    }
    case CC_BOOLEAN:
        if (!take(r, 1, &b)) return rfail(r, "the value ends inside a boolean");
        if (b[0] > 1) return rfail(r, "boolean byte %u (0 or 1)", b[0]);
        it->v.b = b[0] == 1;
        return 1;
    case CC_STRING:
    case CC_BYTES: {
        if (!take(r, 4, &b)) return rfail(r, "the value ends inside a %s's length", cc__type_name(type));
        size_t len = (size_t)le(b, 4);
        if (!take(r, len, &b)) return rfail(r, "a %s of %zu bytes with %zu left", cc__type_name(type), len, (size_t)(r->end - r->p));
        it->v.bytes = (cc_bytes){b, len};
        return 1;
    }
    case CC_ARRAY:
    case CC_MAP:
    case CC_STRUCT: {
        uint32_t count;
        if (type == CC_STRUCT) {
            if (!n) return rfail(r, "a struct in a schemaless value");
            count = (uint32_t)n->children_len;
        } else {
            if (!take(r, 4, &b)) return rfail(r, "the value ends inside a %s's count", cc__type_name(type));
            count = (uint32_t)le(b, 4);
        }
        if (r->depth >= CC__MAX_DEPTH + 2) return rfail(r, "a value nested deeper than %d levels", CC__MAX_DEPTH);
        typeof(r->stack[0]) *c = &r->stack[r->depth++];
        c->node = node;
        c->kind = type == CC_STRUCT ? 1 : type == CC_ARRAY ? 2 : 3;
        c->left = type == CC_MAP ? 2 * (uint64_t)count : count;
        c->index = 0;
        it->v.count = count;
        return 1;
    }
    default: return rfail(r, "unknown type %d", type);
    }
}

void cc_write_item(cc_batch *b, const cc_item *it) {
    switch (it->kind) {
    case CC_ITEM_NULL: cc_write_null(b); break;
    case CC_ITEM_INT8: cc_write_int8(b, (int8_t)it->v.i); break;
    case CC_ITEM_INT16: cc_write_int16(b, (int16_t)it->v.i); break;
    case CC_ITEM_INT32: cc_write_int32(b, (int32_t)it->v.i); break;
    case CC_ITEM_INT64: cc_write_int64(b, it->v.i); break;
    case CC_ITEM_FLOAT32: cc_write_float32(b, (float)it->v.f); break;
    case CC_ITEM_FLOAT64: cc_write_float64(b, it->v.f); break;
    case CC_ITEM_BOOLEAN: cc_write_bool(b, it->v.b); break;
    case CC_ITEM_STRING: cc_write_string(b, it->v.bytes.ptr, it->v.bytes.len); break;
    case CC_ITEM_BYTES: cc_write_bytes(b, it->v.bytes.ptr, it->v.bytes.len); break;
    case CC_ITEM_ARRAY: cc_write_array_begin(b); break;
    case CC_ITEM_MAP: cc_write_map_begin(b); break;
    case CC_ITEM_STRUCT: cc_write_struct_begin(b); break;
    case CC_ITEM_END:
        if (it->v.container == CC_ITEM_ARRAY) cc_write_array_end(b);
        else if (it->v.container == CC_ITEM_MAP) cc_write_map_end(b);
        else cc_write_struct_end(b);
        break;
    }
}
