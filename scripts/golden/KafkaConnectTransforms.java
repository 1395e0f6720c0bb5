/*
 * The golden outputs of tests/golden/kafka-connect/transforms.json: what
 * Kafka Connect 4.4's own single message transforms
 * (org.apache.kafka.connect.transforms.*, jar connect-transforms) and
 * predicates (...transforms.predicates.*) make of a corpus of records.
 * Copycat's transforms must give the same records, the same drops and the
 * same errors. Run by scripts/golden/kafka-connect-transforms.sh, which
 * compiles it with NeutralJson.java (the neutral JSON writers it shares with
 * KafkaConnectConverters.java) through scripts/golden/java.sh, Kafka
 * Connect's jars on the classpath:
 *
 *   javac -d DIR -cp "$(scripts/kafka-connect.sh classpath)" NeutralJson.java KafkaConnectTransforms.java
 *   java -Duser.timezone=UTC -cp "DIR:$(scripts/kafka-connect.sh classpath)" KafkaConnectTransforms OUT
 *
 * Nothing here decides an output: every record, result and error is what
 * Kafka Connect's classes return or throw. Each case gets a new transform
 * (predicate) instance, configured with configure(Map<String, String>) as
 * the worker configures one (the settings as strings, without the
 * transforms.NAME. prefix), applied to (tested against) one fresh copy of a
 * corpus record, then closed. The input records are SourceRecords (source
 * partition and offset null): the transforms make their output with
 * record.newRecord(...). A configuration that configure() rejects is one
 * case of kind configure (with no record); every transform and predicate
 * case has a configuration that configure() accepts.
 *
 * The file also holds every transform's and predicate's ConfigDef
 * (config_defs), for the REST API's config listings.
 *
 * The neutral JSON form of schemas and values (NeutralJson.java) is
 * described in FORMAT below and copied into the output's "format" field.
 * The JVM's time zone and locale are pinned by the script (UTC, en-US).
 * The output is deterministic: records and cases in the order of this file,
 * objects in a fixed key order, a HashMap's entries sorted.
 */

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

import java.io.File;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class KafkaConnectTransforms {
    static final String[] FORMAT = NeutralJson.lines(new String[] {
        "records: NAME -> RECORD, the input corpus (each case names its input record). The inputs are SourceRecords",
        "  (source partition and offset null), so InsertField's offset.field, which needs a SinkRecord, fails on them.",
        "RECORD: {topic, partition, key_schema, key, value_schema, value, timestamp, headers}: topic a string; partition",
        "  (kafkaPartition) an int or null; key_schema, value_schema: SCHEMA; key, value: VALUE; timestamp: milliseconds",
        "  since the epoch or null; headers: [{key, schema: SCHEMA, value: VALUE}...] in header order (a key may repeat).",
        "config_defs: CLASS -> [CONFIG_KEY...], each transform's and predicate's ConfigDef (config()), in definition order.",
        "CONFIG_KEY: {name, type (ConfigDef.Type: STRING LIST BOOLEAN INT ...), default?, importance (HIGH MEDIUM LOW),",
        "  documentation, validator?, group?, order_in_group, width, display_name, dependents}: default is absent when the key",
        "  has no default (it is required), null when the default is null, else ConfigDef.convertToString of the default",
        "  (a LIST as comma-separated text, \"\" for the empty list); validator is the validator's toString (absent if none).",
        "cases: [CASE...]. CASE: {id, kind (transform | predicate | configure), class, config, ...}: id is unique",
        "  (TRANSFORM-LABEL/CONFIG-LABEL/RECORD, or TRANSFORM-LABEL/CONFIG-LABEL for kind configure); class is the class",
        "  name as the worker loads it (nested classes with $, e.g. org.apache.kafka.connect.transforms.InsertField$Value);",
        "  config is the map of strings given to configure(), exactly (no transforms.NAME. prefix, no type key).",
        "  transform: record (a NAME in records), then output: RECORD, or output: null (apply returned null: the record is",
        "             dropped), or error: ERROR (stage apply).",
        "  predicate: record, then result: true | false, or error: ERROR (stage test).",
        "  configure: configure() threw: error: ERROR (stage configure) and config_key: the setting a ConfigException names",
        "             (its message's 'Invalid value V for configuration KEY' or 'Missing required configuration \"KEY\"'),",
        "             or null when it names none or names something that is not one of the class's settings (Cast and",
        "             TimestampConverter build some ConfigExceptions with their arguments in another order).",
        "  Every case uses a new instance (configure, apply or test, close) and a fresh copy of the record.",
        "ERROR: {stage, class, message, cause?}: the Java exception's class and message, and its cause chain in the same",
        "  shape. The class and the top-level message are what Kafka Connect reports; some messages come from the JVM or",
        "  name Java classes, and a reimplementation need not reproduce the causes' text. An identity hash code in a",
        "  message (Object.toString's CLASS@HEX, which changes from run to run) is written CLASS@HASH.",
        "Values that a transform puts in a Java HashMap (schemaless ReplaceField, Cast, ...) have no meaningful order: their",
        "  entries are listed sorted (see VALUE's map); LinkedHashMap entries are in the transform's order.",
    }, NeutralJson.FORMAT_SCHEMA_VALUE);

    static final JsonNodeFactory NODES = NeutralJson.NODES;
    static final String PKG = "org.apache.kafka.connect.transforms.";

    /** 2026-12-05T10:11:12Z. */
    static final long TS = 1796465472000L;
    static final String TS_TEXT = "2026-12-05 10:11:12";

    final Map<String, Supplier<SourceRecord>> records = new LinkedHashMap<>();
    final Map<String, JsonNode> recordJson = new LinkedHashMap<>();
    final Map<String, ConfigDef> configDefs = new LinkedHashMap<>();
    final ArrayNode cases = NODES.arrayNode();
    final Set<String> ids = new HashSet<>();
    final Map<String, Integer> perClass = new LinkedHashMap<>();

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: KafkaConnectTransforms OUT.json");
            System.exit(2);
        }
        KafkaConnectTransforms g = new KafkaConnectTransforms();
        g.corpus();
        g.insertField();
        g.replaceField();
        g.maskField();
        g.valueToKey();
        g.extractField();
        g.setSchemaMetadata();
        g.timestampRouter();
        g.regexRouter();
        g.flatten();
        g.cast();
        g.timestampConverter();
        g.filter();
        g.hoistField();
        g.insertHeader();
        g.dropHeaders();
        g.headerFrom();
        g.predicates();

        ObjectNode root = NODES.objectNode();
        root.put("generator", "scripts/golden/kafka-connect-transforms.sh (scripts/golden/KafkaConnectTransforms.java)");
        root.put("kafka_connect_version", AppInfoParser.getVersion());
        root.put("java_specification_version", System.getProperty("java.specification.version"));
        ArrayNode format = root.putArray("format");
        for (String line : FORMAT) {
            format.add(line);
        }
        ObjectNode recs = root.putObject("records");
        g.recordJson.forEach(recs::set);
        ObjectNode defs = root.putObject("config_defs");
        g.configDefs.forEach((cls, def) -> defs.set(cls, configDef(def)));
        root.set("cases", g.cases);

        NeutralJson.write(new File(args[0]), root);
        System.err.println("KafkaConnectTransforms: " + g.records.size() + " records, " + g.cases.size() + " cases "
            + g.perClass);
    }

    // ------------------------------------------------------------------
    // The corpus
    // ------------------------------------------------------------------

    static final Schema FLAT = SchemaBuilder.struct()
        .field("i8", Schema.INT8_SCHEMA)
        .field("i16", Schema.INT16_SCHEMA)
        .field("i32", Schema.INT32_SCHEMA)
        .field("i64", Schema.INT64_SCHEMA)
        .field("f32", Schema.FLOAT32_SCHEMA)
        .field("f64", Schema.FLOAT64_SCHEMA)
        .field("flag", Schema.BOOLEAN_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("blob", Schema.BYTES_SCHEMA)
        .field("opt_i32", Schema.OPTIONAL_INT32_SCHEMA)
        .field("opt_str", Schema.OPTIONAL_STRING_SCHEMA)
        .field("dflt_i32", SchemaBuilder.int32().optional().defaultValue(42).build())
        .field("dflt_str", SchemaBuilder.string().defaultValue("fallback").build())
        .build();

    static final Schema ADDRESS = SchemaBuilder.struct()
        .field("city", Schema.STRING_SCHEMA)
        .field("zip", Schema.OPTIONAL_STRING_SCHEMA)
        .build();
    static final Schema CUSTOMER = SchemaBuilder.struct()
        .field("name", Schema.STRING_SCHEMA)
        .field("address", ADDRESS)
        .build();
    static final Schema NESTED = SchemaBuilder.struct()
        .field("i64", Schema.INT64_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("customer", CUSTOMER)
        .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
        .field("counts", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
        .build();
    static final Schema OPTIONAL_CUSTOMER = SchemaBuilder.struct()
        .field("name", Schema.STRING_SCHEMA)
        .field("address", ADDRESS)
        .optional()
        .build();
    static final Schema NULL_NESTED = SchemaBuilder.struct()
        .field("i64", Schema.INT64_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("customer", OPTIONAL_CUSTOMER)
        .build();
    static final Schema LOGICAL = SchemaBuilder.struct()
        .field("i64", Schema.INT64_SCHEMA)
        .field("amount", Decimal.schema(2))
        .field("day", Date.SCHEMA)
        .field("at", Time.SCHEMA)
        .field("ts", Timestamp.SCHEMA)
        .field("opt_ts", Timestamp.builder().optional().build())
        .field("epoch", Schema.INT64_SCHEMA)
        .field("when", Schema.STRING_SCHEMA)
        .build();
    static final Schema KEY = SchemaBuilder.struct()
        .field("id", Schema.INT64_SCHEMA)
        .field("region", Schema.STRING_SCHEMA)
        .build();
    static final Schema SMALL = SchemaBuilder.struct()
        .field("i64", Schema.INT64_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .build();
    static final Schema NAMED = SchemaBuilder.struct()
        .name("com.example.Order").version(7).doc("an order")
        .field("i64", Schema.INT64_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .build();
    static final Schema META = SchemaBuilder.struct()
        .field("source", Schema.STRING_SCHEMA)
        .field("seq", Schema.INT32_SCHEMA)
        .build();

    void corpus() {
        // Typed: a schema on the value (and the key).
        rec("typed-flat", () -> typed("orders", 3, Schema.STRING_SCHEMA, "order-1", FLAT, flat(), TS, null));
        rec("typed-logical", () -> typed("orders", 3, Schema.STRING_SCHEMA, "order-2", LOGICAL, logical(), TS, null));
        rec("typed-nested", () -> typed("orders", 3, Schema.STRING_SCHEMA, "order-3", NESTED, nested(), TS, null));
        rec("typed-null-nested", () -> typed("orders", 3, Schema.STRING_SCHEMA, "order-4", NULL_NESTED,
            new Struct(NULL_NESTED).put("i64", 4L).put("name", "no customer").put("customer", null), TS, null));
        rec("typed-struct-key", () -> typed("orders", 0, KEY, new Struct(KEY).put("id", 42L).put("region", "eu"),
            SMALL, small(42L, "keyed"), TS, null));
        rec("typed-named", () -> typed("orders", 3, Schema.STRING_SCHEMA, "order-5", NAMED,
            new Struct(NAMED).put("i64", 5L).put("name", "named"), TS, null));
        rec("typed-null-value", () -> typed("orders", 3, Schema.STRING_SCHEMA, "order-6",
            SchemaBuilder.struct().field("i64", Schema.INT64_SCHEMA).field("name", Schema.STRING_SCHEMA).optional().build(),
            null, TS, null));
        rec("tombstone", () -> typed("orders", 3, Schema.STRING_SCHEMA, "order-7", null, null, TS, null));
        rec("typed-headers", () -> {
            ConnectHeaders h = new ConnectHeaders();
            h.addString("trace", "abc");
            h.addInt("retries", 3);
            h.addStruct("meta", new Struct(META).put("source", "db").put("seq", 9));
            h.add("empty", null, Schema.OPTIONAL_STRING_SCHEMA);
            h.addString("trace", "def");
            return typed("audit.events-2026", 1, Schema.STRING_SCHEMA, "evt-1", SMALL, small(8L, "with headers"), TS, h);
        });
        rec("typed-int32-value", () -> typed("orders", 3, null, null, Schema.INT32_SCHEMA, 42, TS, null));
        rec("typed-int64-epoch", () -> typed("orders", 3, null, null, Schema.INT64_SCHEMA, TS, TS, null));
        rec("typed-float64-value", () -> typed("orders", 3, null, null, Schema.FLOAT64_SCHEMA, 3.75, TS, null));
        rec("typed-boolean-value", () -> typed("orders", 3, null, null, Schema.BOOLEAN_SCHEMA, true, TS, null));
        rec("typed-bytes-value", () -> typed("orders", 3, null, null, Schema.BYTES_SCHEMA, new byte[] {104, 105}, TS, null));
        rec("typed-decimal-value", () -> typed("orders", 3, null, null, Decimal.schema(2), new BigDecimal("12.34"), TS, null));
        rec("typed-string-value", () -> typed("orders", 3, null, null, Schema.STRING_SCHEMA, "hello", TS, null));
        rec("typed-string-number", () -> typed("orders", 3, null, null, Schema.STRING_SCHEMA, "123", TS, null));
        rec("typed-string-date", () -> typed("orders", 3, null, null, Schema.STRING_SCHEMA, TS_TEXT, TS, null));
        rec("typed-timestamp-value", () -> typed("orders", 3, null, null, Timestamp.SCHEMA, new java.util.Date(TS), TS, null));
        rec("typed-null-timestamp", () -> typed("orders", 3, null, null, Timestamp.builder().optional().build(), null, TS, null));

        // Schemaless: no schemas; Java maps, lists and scalars.
        rec("schemaless-map", () -> schemaless("audit.events-2026", null, schemalessMap(), TS, null));
        rec("schemaless-times", () -> schemaless("audit.events-2026", null, linked(
            "i64", 43L, "epoch", TS, "when", TS_TEXT, "ts", new java.util.Date(TS), "opt_ts", null), TS, null));
        rec("schemaless-map-key", () -> schemaless("audit.events-2026", linked("id", 42L, "region", "eu"),
            linked("i64", 42L, "name", "keyed"), TS, null));
        rec("schemaless-string-key", () -> {
            ConnectHeaders h = new ConnectHeaders();
            h.add("trace", "xyz", null);
            h.add("count", 5, null);
            return schemaless("audit.events-2026", "user-7", linked("i64", 7L, "name", "bob"), TS, h);
        });
        rec("schemaless-tombstone", () -> schemaless("audit.events-2026", "user-7", null, TS, null));
        rec("schemaless-string", () -> schemaless("audit.events-2026", null, "plain text", null, null));
        rec("schemaless-long", () -> schemaless("audit.events-2026", null, TS, TS, null));
        rec("schemaless-string-date", () -> schemaless("audit.events-2026", null, TS_TEXT, TS, null));
    }

    static Struct flat() {
        return new Struct(FLAT)
            .put("i8", (byte) -8).put("i16", (short) 1600).put("i32", 32).put("i64", 6400000000L)
            .put("f32", 1.5f).put("f64", 2.25).put("flag", true).put("name", "alice")
            .put("blob", new byte[] {1, 2, 3}).put("opt_i32", null).put("opt_str", "present")
            .put("dflt_i32", null).put("dflt_str", "given");
    }

    static Struct logical() {
        return new Struct(LOGICAL)
            .put("i64", 2L).put("amount", new BigDecimal("1234.50"))
            .put("day", new java.util.Date(TS - TS % 86400000L)).put("at", new java.util.Date(TS % 86400000L))
            .put("ts", new java.util.Date(TS)).put("opt_ts", null).put("epoch", TS).put("when", TS_TEXT);
    }

    static Struct nested() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        counts.put("x", 1);
        counts.put("y", 2);
        return new Struct(NESTED).put("i64", 3L).put("name", "nested")
            .put("customer", new Struct(CUSTOMER).put("name", "carol")
                .put("address", new Struct(ADDRESS).put("city", "Oslo").put("zip", null)))
            .put("tags", List.of("a", "b")).put("counts", counts);
    }

    static Struct small(long i64, String name) {
        return new Struct(SMALL).put("i64", i64).put("name", name);
    }

    static Map<Object, Object> schemalessMap() {
        return linked(
            "i32", 7, "i64", 42L, "f64", 9.5, "flag", true, "name", "alice", "blob", new byte[] {1, 2, 3},
            "opt_str", null, "tags", new ArrayList<>(List.of("a", "b")),
            "customer", linked("name", "carol", "address", linked("city", "Oslo", "zip", null)),
            "counts", linked("x", 1, "y", 2));
    }

    static SourceRecord typed(String topic, Integer partition, Schema keySchema, Object key, Schema valueSchema,
                              Object value, Long timestamp, ConnectHeaders headers) {
        return new SourceRecord(null, null, topic, partition, keySchema, key, valueSchema, value, timestamp, headers);
    }

    static SourceRecord schemaless(String topic, Object key, Object value, Long timestamp, ConnectHeaders headers) {
        return new SourceRecord(null, null, topic, null, null, key, null, value, timestamp, headers);
    }

    void rec(String name, Supplier<SourceRecord> make) {
        if (records.put(name, make) != null) {
            throw new IllegalStateException("duplicate record " + name);
        }
        recordJson.put(name, record(make.get()));
    }

    static JsonNode record(ConnectRecord<?> r) {
        if (r == null) {
            return NODES.nullNode();
        }
        ObjectNode n = NODES.objectNode();
        n.put("topic", r.topic());
        if (r.kafkaPartition() == null) {
            n.putNull("partition");
        } else {
            n.put("partition", r.kafkaPartition());
        }
        n.set("key_schema", NeutralJson.schema(r.keySchema()));
        n.set("key", NeutralJson.value(r.key(), r.keySchema()));
        n.set("value_schema", NeutralJson.schema(r.valueSchema()));
        n.set("value", NeutralJson.value(r.value(), r.valueSchema()));
        if (r.timestamp() == null) {
            n.putNull("timestamp");
        } else {
            n.put("timestamp", r.timestamp());
        }
        ArrayNode headers = n.putArray("headers");
        for (Header h : r.headers()) {
            ObjectNode hn = headers.addObject();
            hn.put("key", h.key());
            hn.set("schema", NeutralJson.schema(h.schema()));
            hn.set("value", NeutralJson.value(h.value(), h.schema()));
        }
        return n;
    }

    // ------------------------------------------------------------------
    // Record selections
    // ------------------------------------------------------------------

    /** Every record. */
    List<String> all() {
        return new ArrayList<>(records.keySet());
    }

    /** Structured values (typed structs, schemaless maps), and a few others that should fail or pass through. */
    static final List<String> VALUES = List.of(
        "typed-flat", "typed-logical", "typed-nested", "typed-null-nested", "typed-named", "typed-headers",
        "typed-null-value", "tombstone", "typed-string-value",
        "schemaless-map", "schemaless-times", "schemaless-tombstone", "schemaless-string");

    /** Keys: a string, a struct, a schemaless map, a schemaless string, no key. */
    static final List<String> KEYS = List.of(
        "typed-flat", "typed-struct-key", "tombstone", "typed-int32-value",
        "schemaless-map-key", "schemaless-string-key", "schemaless-map");

    /** Primitive values, typed and schemaless, and a struct and tombstones. */
    static final List<String> PRIMITIVES = List.of(
        "typed-int32-value", "typed-int64-epoch", "typed-float64-value", "typed-boolean-value", "typed-bytes-value",
        "typed-decimal-value", "typed-string-value", "typed-string-number", "typed-timestamp-value",
        "typed-null-timestamp", "tombstone", "typed-flat",
        "schemaless-long", "schemaless-string", "schemaless-tombstone", "schemaless-map");

    /** Whole-value timestamps in every representation. */
    static final List<String> TIMES = List.of(
        "typed-int64-epoch", "typed-timestamp-value", "typed-string-date", "typed-null-timestamp", "typed-string-value",
        "typed-int32-value", "tombstone", "schemaless-long", "schemaless-string-date", "schemaless-string",
        "schemaless-tombstone");

    /** Structured values with timestamp fields (ts, epoch, when, opt_ts, day, at). */
    static final List<String> TIME_FIELDS = List.of(
        "typed-logical", "schemaless-times", "typed-flat", "typed-null-value", "tombstone", "schemaless-tombstone",
        "schemaless-string");

    /** Records with and without headers. */
    static final List<String> HEADERS = List.of(
        "typed-headers", "schemaless-string-key", "typed-flat", "typed-struct-key", "tombstone", "schemaless-map",
        "schemaless-tombstone");

    /** For configurations that should fail: the records they run over if they do not. */
    static final List<String> PROBE = List.of("typed-flat", "schemaless-map");

    // ------------------------------------------------------------------
    // The transforms
    // ------------------------------------------------------------------

    void insertField() {
        for (String v : List.of("Value", "Key")) {
            String cls = "InsertField$" + v;
            List<String> recs = v.equals("Value") ? VALUES : KEYS;
            transform(cls, "topic", recs, "topic.field", "topic");
            transform(cls, "topic-required", recs, "topic.field", "topic!");
            transform(cls, "partition-and-timestamp", recs, "partition.field", "partition", "timestamp.field", "ts_inserted");
            transform(cls, "static", recs, "static.field", "origin", "static.value", "copycat");
            transform(cls, "offset", recs, "offset.field", "offset");
            if (v.equals("Key")) {
                continue;
            }
            transform(cls, "topic-optional-suffix", recs, "topic.field", "topic?");
            transform(cls, "partition", recs, "partition.field", "partition");
            transform(cls, "partition-required", recs, "partition.field", "partition!");
            transform(cls, "offset-optional", recs, "offset.field", "offset?");
            transform(cls, "timestamp", recs, "timestamp.field", "ts_inserted");
            transform(cls, "timestamp-required", recs, "timestamp.field", "ts_inserted!");
            transform(cls, "static-required", recs, "static.field", "origin!", "static.value", "copycat");
            transform(cls, "static-no-value", recs, "static.field", "origin");
            transform(cls, "static-value-only", recs, "static.value", "copycat");
            transform(cls, "all", recs, "topic.field", "t!", "partition.field", "p", "timestamp.field", "ts?",
                "static.field", "s", "static.value", "v");
            transform(cls, "topic-replace-null-false", recs, "topic.field", "topic", "replace.null.with.default", "false");
            transform(cls, "existing-field", recs, "topic.field", "name");
            transform(cls, "none", recs);
            transform(cls, "bad-replace-null", PROBE, "topic.field", "topic", "replace.null.with.default", "maybe");
        }
    }

    void replaceField() {
        String cls = "ReplaceField$Value";
        transform(cls, "exclude", VALUES, "exclude", "i8,opt_str,name");
        transform(cls, "include", VALUES, "include", "i32,name,missing");
        transform(cls, "renames", VALUES, "renames", "i32:int32,name:full_name");
        transform(cls, "include-exclude-renames", VALUES, "include", "i32,name,flag", "exclude", "flag",
            "renames", "name:n");
        transform(cls, "exclude-nested", VALUES, "exclude", "customer,tags");
        transform(cls, "exclude-default-field", VALUES, "exclude", "name", "replace.null.with.default", "true");
        transform(cls, "replace-null-false", VALUES, "exclude", "name", "replace.null.with.default", "false");
        transform(cls, "rename-to-existing", VALUES, "renames", "i32:name");
        transform(cls, "rename-swap", VALUES, "renames", "i32:name,name:i32");
        transform(cls, "blacklist-4-4-ignores", VALUES, "blacklist", "name");
        transform(cls, "whitelist-4-4-ignores", VALUES, "whitelist", "name");
        transform(cls, "none", VALUES);
        transform(cls, "bad-rename-no-colon", PROBE, "renames", "foo");
        transform(cls, "bad-rename-two-colons", PROBE, "renames", "a:b:c");
        transform(cls, "bad-rename-empty", PROBE, "renames", "a:");
        cls = "ReplaceField$Key";
        transform(cls, "exclude", KEYS, "exclude", "region");
        transform(cls, "renames", KEYS, "renames", "id:key_id");
        transform(cls, "include", KEYS, "include", "id");
    }

    void maskField() {
        String cls = "MaskField$Value";
        transform(cls, "numbers", VALUES, "fields", "i8,i16,i32,i64,f32,f64");
        transform(cls, "strings", VALUES, "fields", "name,opt_str,dflt_str");
        transform(cls, "boolean-bytes", VALUES, "fields", "flag,blob");
        transform(cls, "optional-null", VALUES, "fields", "opt_i32,dflt_i32");
        transform(cls, "optional-null-replace-null-false", VALUES, "fields", "opt_i32,dflt_i32",
            "replace.null.with.default", "false");
        transform(cls, "logical", VALUES, "fields", "amount,day,at,ts,opt_ts");
        transform(cls, "containers", VALUES, "fields", "customer,tags,counts");
        transform(cls, "missing-field", VALUES, "fields", "nope");
        transform(cls, "replacement-number", VALUES, "fields", "i8,i32,i64,f64,amount", "replacement", "99");
        transform(cls, "replacement-decimal-text", VALUES, "fields", "f32,f64,amount", "replacement", "1.5");
        transform(cls, "replacement-string", VALUES, "fields", "name,opt_str", "replacement", "****");
        transform(cls, "replacement-invalid-number", VALUES, "fields", "i32", "replacement", "abc");
        transform(cls, "replacement-boolean", VALUES, "fields", "flag", "replacement", "x");
        transform(cls, "replacement-timestamp", VALUES, "fields", "ts", "replacement", "x");
        transform(cls, "bad-replacement-empty", PROBE, "fields", "name", "replacement", "");
        transform(cls, "bad-no-fields", PROBE);
        cls = "MaskField$Key";
        transform(cls, "id", KEYS, "fields", "id");
        transform(cls, "region-replacement", KEYS, "fields", "region", "replacement", "xx");
    }

    void valueToKey() {
        String cls = "ValueToKey";
        transform(cls, "single", VALUES, "fields", "i64");
        transform(cls, "multiple", VALUES, "fields", "i64,name,dflt_i32");
        transform(cls, "multiple-replace-null-false", VALUES, "fields", "i64,dflt_i32", "replace.null.with.default", "false");
        transform(cls, "missing-field", VALUES, "fields", "nope");
        transform(cls, "struct-field", VALUES, "fields", "customer");
        transform(cls, "nested-v1", VALUES, "fields", "customer.address.city");
        transform(cls, "nested-v2", VALUES, "fields", "i64,customer.address.city,customer.name",
            "field.syntax.version", "V2");
        transform(cls, "nested-v2-lowercase", VALUES, "fields", "customer.name", "field.syntax.version", "v2");
        transform(cls, "nested-v2-backticks", VALUES, "fields", "`customer`.name", "field.syntax.version", "V2");
        transform(cls, "bad-no-fields", PROBE);
        transform(cls, "bad-syntax-version", PROBE, "fields", "i64", "field.syntax.version", "V3");
    }

    void extractField() {
        String cls = "ExtractField$Value";
        transform(cls, "name", VALUES, "field", "name");
        transform(cls, "struct", VALUES, "field", "customer");
        transform(cls, "array", VALUES, "field", "tags");
        transform(cls, "missing", VALUES, "field", "nope");
        transform(cls, "default", VALUES, "field", "dflt_i32");
        transform(cls, "default-replace-null-false", VALUES, "field", "dflt_i32", "replace.null.with.default", "false");
        transform(cls, "nested-v1", VALUES, "field", "customer.address.city");
        transform(cls, "nested-v2", VALUES, "field", "customer.address.city", "field.syntax.version", "V2");
        transform(cls, "nested-v2-struct", VALUES, "field", "customer.address", "field.syntax.version", "V2");
        transform(cls, "nested-v2-missing", VALUES, "field", "customer.nope", "field.syntax.version", "V2");
        transform(cls, "bad-no-field", PROBE);
        transform(cls, "bad-syntax-version", PROBE, "field", "name", "field.syntax.version", "V0");
        cls = "ExtractField$Key";
        transform(cls, "id", KEYS, "field", "id");
        transform(cls, "region", KEYS, "field", "region");
    }

    void setSchemaMetadata() {
        String cls = "SetSchemaMetadata$Value";
        transform(cls, "name", VALUES, "schema.name", "com.example.Renamed");
        transform(cls, "version", VALUES, "schema.version", "3");
        transform(cls, "name-and-version", VALUES, "schema.name", "com.example.Renamed", "schema.version", "3");
        transform(cls, "name-replace-null-false", VALUES, "schema.name", "com.example.Renamed",
            "replace.null.with.default", "false");
        transform(cls, "none", VALUES);
        transform(cls, "primitives-name", PRIMITIVES, "schema.name", "com.example.Scalar");
        transform(cls, "bad-version", PROBE, "schema.version", "abc");
        cls = "SetSchemaMetadata$Key";
        transform(cls, "name-and-version", KEYS, "schema.name", "com.example.Key", "schema.version", "2");
    }

    void timestampRouter() {
        String cls = "TimestampRouter";
        List<String> recs = all();
        transform(cls, "default", recs);
        transform(cls, "custom", recs, "topic.format", "${topic}_${timestamp}", "timestamp.format", "yyyy-MM-dd'T'HH");
        transform(cls, "no-placeholders", recs, "topic.format", "fixed", "timestamp.format", "yyyy");
        transform(cls, "week", recs, "timestamp.format", "YYYY-ww");
        transform(cls, "invalid-format-pattern", PROBE, "timestamp.format", "qqq");
    }

    void regexRouter() {
        String cls = "RegexRouter";
        List<String> recs = all();
        transform(cls, "suffix", recs, "regex", "(.*)s", "replacement", "$1-v2");
        transform(cls, "prefix-strip", recs, "regex", "audit\\.(.*)", "replacement", "$1");
        transform(cls, "no-match", recs, "regex", "nomatch", "replacement", "x");
        transform(cls, "partial-match", recs, "regex", "order", "replacement", "x");
        transform(cls, "missing-group", List.of("typed-flat", "schemaless-map"), "regex", "(.*)", "replacement", "$2");
        transform(cls, "bad-regex", PROBE, "regex", "(", "replacement", "x");
        transform(cls, "bad-no-replacement", PROBE, "regex", ".*");
        transform(cls, "bad-no-regex", PROBE, "replacement", "x");
    }

    void flatten() {
        String cls = "Flatten$Value";
        transform(cls, "default", VALUES);
        transform(cls, "underscore", VALUES, "delimiter", "_");
        transform(cls, "empty-delimiter", VALUES, "delimiter", "");
        cls = "Flatten$Key";
        transform(cls, "default", KEYS);
    }

    void cast() {
        String cls = "Cast$Value";
        transform(cls, "to-string", VALUES, "spec", "i8:string,i32:string,f32:string,f64:string,flag:string,blob:string");
        transform(cls, "numbers-wider", VALUES, "spec", "i8:int16,i16:int32,i32:int64,i64:float32,f32:float64");
        transform(cls, "numbers-narrower", VALUES, "spec", "i64:int8,i32:int16,f64:int32,f32:int64");
        transform(cls, "to-boolean", VALUES, "spec", "i32:boolean,f64:boolean,i8:boolean");
        transform(cls, "boolean-to-numbers", VALUES, "spec", "flag:int32");
        transform(cls, "string-to-number", VALUES, "spec", "name:int32");
        transform(cls, "string-to-boolean", VALUES, "spec", "name:boolean");
        transform(cls, "optional", VALUES, "spec", "opt_i32:int64,opt_str:string,dflt_i32:string");
        transform(cls, "optional-replace-null-false", VALUES, "spec", "opt_i32:int64,opt_str:string,dflt_i32:string",
            "replace.null.with.default", "false");
        transform(cls, "decimal-to-float64", VALUES, "spec", "amount:float64");
        transform(cls, "decimal-to-string", VALUES, "spec", "amount:string");
        transform(cls, "decimal-to-int32", VALUES, "spec", "amount:int32");
        transform(cls, "timestamp-to-string", VALUES, "spec", "ts:string,day:string");
        transform(cls, "timestamp-to-int64", VALUES, "spec", "ts:int64");
        transform(cls, "bytes-to-int32", VALUES, "spec", "blob:int32");
        transform(cls, "struct-field", VALUES, "spec", "customer:string");
        transform(cls, "missing-field", VALUES, "spec", "nope:int32");
        for (String type : List.of("int8", "int16", "int32", "int64", "float32", "float64", "boolean", "string")) {
            transform(cls, "whole-" + type, PRIMITIVES, "spec", type);
        }
        transform(cls, "bad-type-decimal", PROBE, "spec", "i32:decimal");
        transform(cls, "bad-type-bytes", PROBE, "spec", "i32:bytes");
        transform(cls, "bad-whole-bytes", PROBE, "spec", "bytes");
        transform(cls, "uppercase-type", PROBE, "spec", "i32:INT64,name:STRING");
        transform(cls, "bad-no-type", PROBE, "spec", "i32:");
        transform(cls, "bad-field-and-whole", PROBE, "spec", "int32,i32:string");
        transform(cls, "bad-empty", PROBE, "spec", "");
        transform(cls, "bad-no-spec", PROBE);
        cls = "Cast$Key";
        transform(cls, "whole-string", KEYS, "spec", "string");
        transform(cls, "id-to-string", KEYS, "spec", "id:string");
    }

    void timestampConverter() {
        String cls = "TimestampConverter$Value";
        String fmt = "yyyy-MM-dd HH:mm:ss";
        transform(cls, "ts-to-string", TIME_FIELDS, "field", "ts", "target.type", "string", "format", fmt);
        transform(cls, "ts-to-string-iso", TIME_FIELDS, "field", "ts", "target.type", "string",
            "format", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
        transform(cls, "ts-to-unix", TIME_FIELDS, "field", "ts", "target.type", "unix");
        for (String p : List.of("seconds", "microseconds", "nanoseconds")) {
            transform(cls, "ts-to-unix-" + p, TIME_FIELDS, "field", "ts", "target.type", "unix", "unix.precision", p);
        }
        transform(cls, "ts-to-date", TIME_FIELDS, "field", "ts", "target.type", "Date");
        transform(cls, "ts-to-time", TIME_FIELDS, "field", "ts", "target.type", "Time");
        transform(cls, "ts-to-timestamp", TIME_FIELDS, "field", "ts", "target.type", "Timestamp");
        transform(cls, "epoch-to-timestamp", TIME_FIELDS, "field", "epoch", "target.type", "Timestamp");
        transform(cls, "epoch-seconds-to-timestamp", TIME_FIELDS, "field", "epoch", "target.type", "Timestamp",
            "unix.precision", "seconds");
        transform(cls, "epoch-to-string", TIME_FIELDS, "field", "epoch", "target.type", "string", "format", fmt);
        transform(cls, "when-to-timestamp", TIME_FIELDS, "field", "when", "target.type", "Timestamp", "format", fmt);
        transform(cls, "when-to-unix", TIME_FIELDS, "field", "when", "target.type", "unix", "format", fmt);
        transform(cls, "when-to-date", TIME_FIELDS, "field", "when", "target.type", "Date", "format", fmt);
        transform(cls, "when-wrong-format", TIME_FIELDS, "field", "when", "target.type", "Timestamp", "format", "dd/MM/yyyy");
        transform(cls, "when-no-format", TIME_FIELDS, "field", "when", "target.type", "Timestamp");
        transform(cls, "day-to-string", TIME_FIELDS, "field", "day", "target.type", "string", "format", "yyyy-MM-dd");
        transform(cls, "at-to-unix", TIME_FIELDS, "field", "at", "target.type", "unix");
        transform(cls, "opt-ts-to-string", TIME_FIELDS, "field", "opt_ts", "target.type", "string", "format", fmt);
        transform(cls, "opt-ts-to-unix-replace-null-false", TIME_FIELDS, "field", "opt_ts", "target.type", "unix",
            "replace.null.with.default", "false");
        transform(cls, "missing-field", TIME_FIELDS, "field", "nope", "target.type", "string", "format", fmt);
        transform(cls, "whole-to-string", TIMES, "target.type", "string", "format", fmt);
        transform(cls, "whole-to-unix", TIMES, "target.type", "unix", "format", fmt);
        transform(cls, "whole-to-unix-seconds", TIMES, "target.type", "unix", "unix.precision", "seconds", "format", fmt);
        transform(cls, "whole-to-date", TIMES, "target.type", "Date", "format", fmt);
        transform(cls, "whole-to-time", TIMES, "target.type", "Time", "format", fmt);
        transform(cls, "whole-to-timestamp", TIMES, "target.type", "Timestamp", "format", fmt);
        transform(cls, "whole-to-timestamp-no-format", TIMES, "target.type", "Timestamp");
        transform(cls, "bad-target-type", PROBE, "target.type", "Instant");
        transform(cls, "bad-target-type-case", PROBE, "target.type", "timestamp");
        transform(cls, "bad-string-no-format", PROBE, "target.type", "string");
        transform(cls, "bad-format-pattern", PROBE, "target.type", "string", "format", "qqq");
        transform(cls, "bad-unix-precision", PROBE, "target.type", "unix", "unix.precision", "minutes");
        transform(cls, "bad-no-target-type", PROBE, "field", "ts");
        cls = "TimestampConverter$Key";
        transform(cls, "whole-to-string", KEYS, "target.type", "string", "format", "yyyy");
        transform(cls, "id-to-timestamp", KEYS, "field", "id", "target.type", "Timestamp");
    }

    void filter() {
        transform("Filter", "none", all());
        transform("Filter", "unknown-setting", PROBE, "anything", "x");
    }

    void hoistField() {
        transform("HoistField$Value", "wrapped", VALUES, "field", "wrapped");
        transform("HoistField$Value", "primitives", PRIMITIVES, "field", "v");
        transform("HoistField$Value", "bad-no-field", PROBE);
        transform("HoistField$Key", "k", KEYS, "field", "k");
    }

    void insertHeader() {
        String cls = "InsertHeader";
        transform(cls, "string", HEADERS, "header", "source", "value.literal", "copycat");
        transform(cls, "int", HEADERS, "header", "n", "value.literal", "42");
        transform(cls, "long", HEADERS, "header", "n", "value.literal", "6400000000");
        transform(cls, "float", HEADERS, "header", "n", "value.literal", "3.5");
        transform(cls, "boolean", HEADERS, "header", "b", "value.literal", "true");
        transform(cls, "map", HEADERS, "header", "m", "value.literal", "{\"a\":1}");
        transform(cls, "array", HEADERS, "header", "a", "value.literal", "[1,2,3]");
        transform(cls, "mixed-array", HEADERS, "header", "a", "value.literal", "[1,\"x\"]");
        transform(cls, "null-text", HEADERS, "header", "z", "value.literal", "null");
        transform(cls, "empty", HEADERS, "header", "e", "value.literal", "");
        transform(cls, "date", HEADERS, "header", "d", "value.literal", "2026-12-05");
        transform(cls, "timestamp", HEADERS, "header", "d", "value.literal", "2026-12-05T10:11:12.000Z");
        transform(cls, "quoted", HEADERS, "header", "q", "value.literal", "\"quoted\"");
        transform(cls, "existing-key", HEADERS, "header", "trace", "value.literal", "ghi");
        transform(cls, "bad-no-header", PROBE, "value.literal", "x");
        transform(cls, "bad-no-literal", PROBE, "header", "x");
    }

    void dropHeaders() {
        String cls = "DropHeaders";
        transform(cls, "one", HEADERS, "headers", "trace");
        transform(cls, "several", HEADERS, "headers", "trace,retries,nope");
        transform(cls, "null-valued", HEADERS, "headers", "empty");
        transform(cls, "bad-no-headers", PROBE);
        transform(cls, "bad-empty", PROBE, "headers", "");
    }

    void headerFrom() {
        String cls = "HeaderFrom$Value";
        transform(cls, "copy", VALUES, "fields", "name", "headers", "h_name", "operation", "copy");
        transform(cls, "move", VALUES, "fields", "name", "headers", "h_name", "operation", "move");
        transform(cls, "move-several", VALUES, "fields", "i64,name", "headers", "a,b", "operation", "move");
        transform(cls, "copy-struct", VALUES, "fields", "customer,tags", "headers", "c,t", "operation", "copy");
        transform(cls, "move-default", VALUES, "fields", "dflt_i32", "headers", "d", "operation", "move");
        transform(cls, "move-default-replace-null-false", VALUES, "fields", "dflt_i32", "headers", "d",
            "operation", "move", "replace.null.with.default", "false");
        transform(cls, "missing-field", VALUES, "fields", "nope", "headers", "n", "operation", "copy");
        transform(cls, "existing-header", List.of("typed-headers"), "fields", "name", "headers", "trace",
            "operation", "copy");
        transform(cls, "bad-length-mismatch", PROBE, "fields", "a,b", "headers", "x", "operation", "copy");
        transform(cls, "bad-operation", PROBE, "fields", "a", "headers", "x", "operation", "swap");
        transform(cls, "bad-operation-case", PROBE, "fields", "a", "headers", "x", "operation", "COPY");
        transform(cls, "bad-no-operation", PROBE, "fields", "a", "headers", "x");
        transform(cls, "bad-empty-fields", PROBE, "fields", "", "headers", "x", "operation", "copy");
        cls = "HeaderFrom$Key";
        transform(cls, "copy", KEYS, "fields", "id", "headers", "key_id", "operation", "copy");
        transform(cls, "move", KEYS, "fields", "id,region", "headers", "a,b", "operation", "move");
    }

    void predicates() {
        List<String> recs = all();
        predicate("TopicNameMatches", "orders", recs, "pattern", "orders");
        predicate("TopicNameMatches", "audit-prefix", recs, "pattern", "audit\\..*");
        predicate("TopicNameMatches", "partial", recs, "pattern", "order");
        predicate("TopicNameMatches", "bad-regex", PROBE, "pattern", "(");
        predicate("TopicNameMatches", "bad-empty", PROBE, "pattern", "");
        predicate("TopicNameMatches", "bad-no-pattern", PROBE);
        predicate("HasHeaderKey", "trace", recs, "name", "trace");
        predicate("HasHeaderKey", "null-valued", recs, "name", "empty");
        predicate("HasHeaderKey", "absent", recs, "name", "nope");
        predicate("HasHeaderKey", "bad-empty", PROBE, "name", "");
        predicate("HasHeaderKey", "bad-no-name", PROBE);
        predicate("RecordIsTombstone", "none", recs);
    }

    // ------------------------------------------------------------------
    // Running cases
    // ------------------------------------------------------------------

    void transform(String simpleName, String configLabel, List<String> recs, String... keyValues) {
        run(PKG + simpleName, false, configLabel, recs, keyValues);
    }

    void predicate(String simpleName, String configLabel, List<String> recs, String... keyValues) {
        run(PKG + "predicates." + simpleName, true, configLabel, recs, keyValues);
    }

    /** "InsertField$Value" -> "insert-field-value". */
    static String label(String className) {
        String simple = className.substring(className.lastIndexOf('.') + 1).replace('$', '-');
        return simple.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }

    static Object instantiate(String className) {
        try {
            return Class.forName(className).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot instantiate " + className, e);
        }
    }

    @SuppressWarnings("unchecked")
    static void configure(Object instance, Map<String, String> config) {
        // The worker passes a Map<String, String> (a copy: some transforms keep it).
        Map<String, Object> copy = new HashMap<>(config);
        if (instance instanceof Transformation<?> t) {
            t.configure(copy);
        } else {
            ((Predicate<SourceRecord>) instance).configure(copy);
        }
    }

    static void close(Object instance) {
        if (instance instanceof Transformation<?> t) {
            t.close();
        } else {
            ((Predicate<?>) instance).close();
        }
    }

    ObjectNode newCase(String id, String kind, String className, Map<String, String> config) {
        if (!ids.add(id)) {
            throw new IllegalStateException("duplicate case id " + id);
        }
        perClass.merge(className.substring(PKG.length()), 1, Integer::sum);
        ObjectNode n = cases.addObject();
        n.put("id", id);
        n.put("kind", kind);
        n.put("class", className);
        ObjectNode c = n.putObject("config");
        config.forEach(c::put);
        return n;
    }

    static final Pattern INVALID = Pattern.compile("^Invalid value .* for configuration ([^\\s:]+)", Pattern.DOTALL);
    static final Pattern MISSING = Pattern.compile("^Missing required configuration \"([^\"]+)\"");

    @SuppressWarnings("unchecked")
    void run(String className, boolean isPredicate, String configLabel, List<String> recs, String... keyValues) {
        Map<String, String> config = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            config.put(keyValues[i], keyValues[i + 1]);
        }
        String prefix = label(className) + "/" + configLabel;
        Object probe = instantiate(className);
        configDefs.computeIfAbsent(className, c -> probe instanceof Transformation<?> t
            ? t.config() : ((Predicate<?>) probe).config());
        try {
            configure(probe, config);
        } catch (RuntimeException e) {
            ObjectNode n = newCase(prefix, "configure", className, config);
            n.set("error", NeutralJson.error("configure", e));
            unhash(n.get("error"));
            String key = null;
            if (e instanceof org.apache.kafka.common.config.ConfigException && e.getMessage() != null) {
                Matcher m = INVALID.matcher(e.getMessage());
                Matcher m2 = MISSING.matcher(e.getMessage());
                key = m.find() ? m.group(1) : m2.find() ? m2.group(1) : null;
                // Cast and TimestampConverter give ConfigException(name, value, message) its arguments in
                // another order: the "configuration" their messages name is no setting.
                if (key != null && !configDefs.get(className).configKeys().containsKey(key)) {
                    key = null;
                }
            }
            if (key == null) {
                n.putNull("config_key");
            } else {
                n.put("config_key", key);
            }
            return;
        }
        close(probe);
        if (configLabel.startsWith("bad-")) {
            System.err.println("note: " + prefix + " configures without error");
        }
        for (String name : recs) {
            Supplier<SourceRecord> make = records.get(name);
            if (make == null) {
                throw new IllegalArgumentException("no record " + name);
            }
            ObjectNode n = newCase(prefix + "/" + name, isPredicate ? "predicate" : "transform", className, config);
            n.put("record", name);
            Object instance = instantiate(className);
            configure(instance, config);
            SourceRecord input = make.get();
            try {
                if (isPredicate) {
                    boolean result;
                    try {
                        result = ((Predicate<SourceRecord>) instance).test(input);
                    } catch (RuntimeException e) {
                        n.set("error", unhash(NeutralJson.error("test", e)));
                        continue;
                    }
                    n.put("result", result);
                } else {
                    SourceRecord output;
                    try {
                        output = ((Transformation<SourceRecord>) instance).apply(input);
                    } catch (RuntimeException e) {
                        n.set("error", unhash(NeutralJson.error("apply", e)));
                        continue;
                    }
                    n.set("output", record(output));
                }
            } finally {
                close(instance);
                if (!record(input).equals(recordJson.get(name))) {
                    throw new IllegalStateException(n.get("id").asText() + " changed its input record");
                }
            }
        }
    }

    static final Pattern IDENTITY_HASH = Pattern.compile("\\b([A-Za-z_][\\w.$]*)@[0-9a-f]{1,8}\\b");

    /**
     * Object.toString's identity hash (CLASS@HEX, e.g. in InsertField's message for static.field without
     * static.value) changes from run to run: CLASS@HASH instead, in the message and its causes'.
     */
    static JsonNode unhash(JsonNode error) {
        for (JsonNode e = error; e != null && e.isObject(); e = e.get("cause")) {
            JsonNode message = e.get("message");
            if (message != null && message.isTextual()) {
                ((ObjectNode) e).put("message", IDENTITY_HASH.matcher(message.asText()).replaceAll("$1@HASH"));
            }
        }
        return error;
    }

    // ------------------------------------------------------------------
    // ConfigDef
    // ------------------------------------------------------------------

    static JsonNode configDef(ConfigDef def) {
        ArrayNode a = NODES.arrayNode();
        for (ConfigDef.ConfigKey k : def.configKeys().values()) {
            ObjectNode n = a.addObject();
            n.put("name", k.name);
            n.put("type", k.type.name());
            if (k.hasDefault()) {
                n.put("default", ConfigDef.convertToString(k.defaultValue, k.type));
            }
            n.put("importance", k.importance.name());
            n.put("documentation", k.documentation);
            if (k.validator != null) {
                n.put("validator", k.validator.toString());
            }
            if (k.group != null) {
                n.put("group", k.group);
            }
            n.put("order_in_group", k.orderInGroup);
            n.put("width", k.width.name());
            n.put("display_name", k.displayName);
            ArrayNode deps = n.putArray("dependents");
            k.dependents.forEach(deps::add);
        }
        return a;
    }

    // ------------------------------------------------------------------
    // Helpers
    // ------------------------------------------------------------------

    /** A LinkedHashMap from alternating keys and values (nulls allowed). */
    static Map<Object, Object> linked(Object... keyValues) {
        Map<Object, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }
}
