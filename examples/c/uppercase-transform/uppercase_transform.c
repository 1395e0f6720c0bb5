/*
 * uppercase-transform: upper-cases string values (and bytes, ASCII a-z),
 * or the string fields named in `fields` of a struct or map value (every
 * string field when `fields` is empty). Anything else passes unchanged, and
 * the schema never changes: every record comes out once, in order, with its
 * topic, partition, timestamp, key and headers as they were.
 * Behaviour: examples/SPEC.md in the Copycat checkout.
 */
#include <copycat.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const cc_config_key KEYS[] = {
    {"fields", CC_TYPE_LIST, .default_value = "", .doc = "Fields to upper-case (empty: every string field)"},
};

/* ---- settings ------------------------------------------------------------ */

static char **fields; /* the names in `fields`; none: every string field */
static size_t nfields;

static void free_fields(void) {
    for (size_t i = 0; i < nfields; i++) free(fields[i]);
    free(fields);
    fields = NULL;
    nfields = 0;
}

/* Split `fields` (comma-separated, items trimmed) into the list above; the
 * number of empty names, which are mistakes. */
static size_t parse_fields(const cc_config *config) {
    free_fields();
    const char *v = cc_config_get(config, "fields");
    size_t empty = 0;
    if (!v || v[strspn(v, " \t")] == '\0') return 0;
    for (const char *p = v;;) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        while (p < end && isspace((unsigned char)*p)) p++;
        const char *e = end;
        while (e > p && isspace((unsigned char)e[-1])) e--;
        if (e == p) {
            empty++;
        } else {
            char **grown = realloc(fields, (nfields + 1) * sizeof *fields);
            if (grown) {
                fields = grown;
                fields[nfields++] = strndup(p, (size_t)(e - p));
            }
        }
        if (!comma) break;
        p = comma + 1;
    }
    return empty;
}

static void validate(const cc_config *config, cc_problems *problems) {
    size_t empty = parse_fields(config);
    for (size_t i = 0; i < empty; i++) cc_problem(problems, "fields", "an empty field name");
    free_fields();
}

static cc_status configure(const cc_config *config) {
    if (parse_fields(config))
        return cc_error_config("config 'fields': an empty field name in '%s'", cc_config_get(config, "fields"));
    return CC_OK;
}

static bool wanted(cc_bytes name) {
    if (nfields == 0) return true;
    for (size_t i = 0; i < nfields; i++)
        if (cc_bytes_eq(name, fields[i])) return true;
    return false;
}

/* ---- apply ---------------------------------------------------------------- */

/* ASCII a-z upper-cased, into a scratch buffer reused across records. */
static uint8_t *scratch;
static size_t scratch_cap;

static const uint8_t *upper(cc_bytes s) {
    if (s.len > scratch_cap) {
        uint8_t *grown = realloc(scratch, s.len);
        if (!grown) return NULL;
        scratch = grown;
        scratch_cap = s.len;
    }
    for (size_t i = 0; i < s.len; i++) {
        uint8_t c = s.ptr[i];
        scratch[i] = c >= 'a' && c <= 'z' ? (uint8_t)(c - 'a' + 'A') : c;
    }
    return scratch;
}

/* Copy a typed value item by item, upper-casing the strings it should. */
static cc_status upper_value(const cc_view *in, size_t i, cc_batch *out) {
    cc_data value = cc_view_value(in, i);
    cc_reader r;
    cc_item it;
    cc_reader_init(&r, cc_view_schemas(in), value);
    cc_batch_value_begin(out, value.schema);
    int level = 0;              /* 0: the value itself; 1: its fields, items or entries */
    cc_item_kind top = CC_ITEM_NULL; /* the value's own kind */
    bool key_wanted = false;    /* in a map: whether the entry's key is a wanted name */
    int got;
    while ((got = cc_read(&r, &it)) == 1) {
        if (level == 0) top = it.kind;
        bool up = false;
        if (it.kind == CC_ITEM_STRING || (it.kind == CC_ITEM_BYTES && level == 0)) {
            if (level == 0) up = true;
            else if (level == 1 && top == CC_ITEM_STRUCT) up = wanted(it.field);
            else if (level == 1 && top == CC_ITEM_MAP && !it.map_key) up = key_wanted;
        }
        if (level == 1 && top == CC_ITEM_MAP && it.map_key)
            key_wanted = it.kind == CC_ITEM_STRING && wanted(it.v.bytes);
        if (up) {
            const uint8_t *s = upper(it.v.bytes);
            if (!s) return cc_error_fatal("out of memory");
            if (it.kind == CC_ITEM_STRING) cc_write_string(out, s, it.v.bytes.len);
            else cc_write_bytes(out, s, it.v.bytes.len);
        } else {
            cc_write_item(out, &it);
        }
        if (it.kind == CC_ITEM_ARRAY || it.kind == CC_ITEM_MAP || it.kind == CC_ITEM_STRUCT) level++;
        else if (it.kind == CC_ITEM_END) level--;
    }
    if (got < 0) return cc_error_record((uint32_t)i, "its value cannot be read: %s", cc_reader_error(&r));
    return CC_OK;
}

static cc_status apply(const cc_view *in, cc_batch *out) {
    for (size_t i = 0; i < cc_view_len(in); i++) {
        cc_batch_add_from(out, in, i);
        cc_batch_key_copy(out, in, i);
        cc_data value = cc_view_value(in, i);
        if (value.null) {
            cc_batch_value_copy(out, in, i);
        } else if (value.schema == CC_RAW) { /* raw bytes: upper-cased, still bytes */
            const uint8_t *s = upper((cc_bytes){value.ptr, value.len});
            if (!s) return cc_error_fatal("out of memory");
            cc_batch_value_begin(out, CC_RAW);
            cc_batch_append(out, s, value.len);
        } else {
            cc_status st = upper_value(in, i, out);
            if (st) return st;
        }
        cc_batch_headers_copy(out, in, i);
    }
    return CC_OK;
}

const copycat_transform_t copycat_transform = {
    .name = "uppercase-transform",
    .version = "0.1.0",
    .description = "Upper-cases string values, or the named string fields of a struct or map value",
    .config_def = KEYS,
    .config_def_len = CC_COUNT(KEYS),
    .validate = validate,
    .configure = configure,
    .apply = apply,
};
