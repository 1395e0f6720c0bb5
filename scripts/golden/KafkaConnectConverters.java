/*
 * The golden outputs of tests/golden/kafka-connect/converters.json: what
 * Kafka Connect 4.4's own converters (JsonConverter, StringConverter,
 * ByteArrayConverter, the numeric converters, BooleanConverter,
 * SimpleHeaderConverter) make of Connect data, and what they make of bytes.
 * Copycat's converters must give the same bytes and decode the same bytes to
 * the same values. Run by scripts/golden/kafka-connect-converters.sh, which
 * compiles it with NeutralJson.java (the neutral JSON writers it shares with
 * KafkaConnectTransforms.java) through scripts/golden/java.sh, Kafka
 * Connect's jars on the classpath:
 *
 *   javac -d DIR -cp "$(scripts/kafka-connect.sh classpath)" NeutralJson.java KafkaConnectConverters.java
 *   java -Duser.timezone=UTC -cp "DIR:$(scripts/kafka-connect.sh classpath)" KafkaConnectConverters OUT
 *
 * Nothing here decides an output: every byte string, schema, value and error
 * is what Kafka Connect's classes return or throw. Each case gets a new
 * converter instance, configured as the worker's Plugins configures one:
 * key and value converters with Converter.configure(config, isKey), header
 * converters with HeaderConverter.configure(config + converter.type=header).
 *
 * Two kinds of case:
 *   encode  fromConnectData(topic, schema, value) (fromConnectHeader for the
 *           header role); then, on the same instance, toConnectData of the
 *           bytes it returned (toConnectHeader): the round trip.
 *   decode  toConnectData(topic, bytes) (toConnectHeader) of given bytes.
 *
 * The neutral JSON form of schemas, values, bytes and errors (written by
 * NeutralJson.java) is described in FORMAT below and copied into the
 * output's "format" field. Map entries of a Java HashMap (JsonConverter's
 * decoded maps) have no meaningful order; they are listed sorted by the
 * neutral JSON text of their key so that the file is stable. Input maps
 * are LinkedHashMaps: their order is the order the converter saw.
 *
 * Kafka Connect's Values (SimpleHeaderConverter) formats and parses dates
 * with SimpleDateFormat in the JVM's default time zone and locale; the
 * script pins them (UTC, en-US) so the file does not depend on the machine.
 *
 * The output is deterministic: cases in the order of this file, objects in
 * a fixed key order.
 */

import com.fasterxml.jackson.core.io.schubfach.DoubleToDecimal;
import com.fasterxml.jackson.core.io.schubfach.FloatToDecimal;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.ConverterConfig;
import org.apache.kafka.connect.storage.HeaderConverter;

import java.io.File;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

public class KafkaConnectConverters {
    static final String[] FORMAT = NeutralJson.lines(new String[] {
        "Each case: id, description, converter {class, role (key | value | header), config (the converter's own settings,",
        "  without a key./value./header.converter. prefix; converter.type is added by the harness as the worker does)},",
        "  operation (encode | decode), input, and then:",
        "  encode: input {schema, value}; serialized (BYTES); round_trip (RESULT of decoding serialized with the same instance);",
        "          or error (ERROR) when the encode threw (then no serialized and no round_trip).",
        "  decode: input (BYTES); result (RESULT).",
        "  A converter that fails to configure gives error (stage configure) instead.",
        "  java_dependent: true when the input holds a float or double that Java 17's Float/Double.toString prints with more",
        "  digits than the shortest round-tripping decimal (JDK-4511638); Kafka Connect on Java 19+ prints the shortest, so",
        "  the serialized bytes of these cases differ with the JVM (this file is made with the java_specification_version above).",
        "  Error messages are Java's own (some name Java classes or come from Jackson or the JVM): the class and the top-level",
        "  message are what Kafka Connect reports; a reimplementation need not reproduce the causes' text.",
        "Encode calls fromConnectData(topic, schema, value) for key/value roles, fromConnectHeader(topic, header, schema, value)",
        "  for the header role; decode calls toConnectData(topic, bytes) / toConnectHeader(topic, header, bytes).",
        "  topic and header are the top-level topic and header_key fields (they appear in some error messages).",
    }, NeutralJson.FORMAT_BYTES, new String[] {
        "RESULT: null (the converter returned a Java null SchemaAndValue) or {schema: SCHEMA, value: VALUE} or {error: ERROR}.",
        "ERROR: {stage, class, message, cause?}; stage is configure | fromConnectData | fromConnectHeader | toConnectData |",
        "  toConnectHeader; cause is the Java cause chain in the same shape (class, message, cause?).",
    }, NeutralJson.FORMAT_SCHEMA_VALUE);

    static final String TOPIC = "golden-topic";
    static final String HEADER_KEY = "golden-header";

    static final String JSON = "org.apache.kafka.connect.json.JsonConverter";
    static final String STRING = "org.apache.kafka.connect.storage.StringConverter";
    static final String BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter";
    static final String SIMPLE_HEADER = "org.apache.kafka.connect.storage.SimpleHeaderConverter";
    static final String SHORT = "org.apache.kafka.connect.converters.ShortConverter";
    static final String INTEGER = "org.apache.kafka.connect.converters.IntegerConverter";
    static final String LONG = "org.apache.kafka.connect.converters.LongConverter";
    static final String FLOAT = "org.apache.kafka.connect.converters.FloatConverter";
    static final String DOUBLE = "org.apache.kafka.connect.converters.DoubleConverter";
    static final String BOOLEAN = "org.apache.kafka.connect.converters.BooleanConverter";

    static final JsonNodeFactory NODES = NeutralJson.NODES;

    /** A converter as a case uses it: class, role and its own settings. */
    record Conv(String label, String className, String role, Map<String, String> config) {
        static Conv of(String label, String className, String role, String... keyValues) {
            Map<String, String> config = new LinkedHashMap<>();
            for (int i = 0; i < keyValues.length; i += 2) {
                config.put(keyValues[i], keyValues[i + 1]);
            }
            return new Conv(label, className, role, config);
        }
    }

    /** A typed record (schema + value) that several converters encode. */
    record Sample(String id, String description, Schema schema, Object value) {}

    final ArrayNode cases = NODES.arrayNode();
    final Set<String> ids = new HashSet<>();
    final Map<String, Integer> perConverter = new LinkedHashMap<>();

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: KafkaConnectConverters OUT.json");
            System.exit(2);
        }
        KafkaConnectConverters g = new KafkaConnectConverters();
        List<Sample> typed = typedSamples();
        List<Sample> schemaless = schemalessSamples();
        g.jsonConverterCases(typed, schemaless);
        g.jsonDecodeCases();
        g.simpleHeaderConverterCases(typed, schemaless);
        g.stringConverterCases(typed, schemaless);
        g.byteArrayConverterCases();
        g.numberConverterCases();
        g.booleanConverterCases();

        ObjectNode root = NODES.objectNode();
        root.put("generator", "scripts/golden/kafka-connect-converters.sh (scripts/golden/KafkaConnectConverters.java)");
        root.put("kafka_connect_version", AppInfoParser.getVersion());
        root.put("java_specification_version", System.getProperty("java.specification.version"));
        ObjectNode jvm = root.putObject("jvm_defaults");
        jvm.put("user.timezone", java.util.TimeZone.getDefault().getID());
        jvm.put("locale", java.util.Locale.getDefault().toLanguageTag());
        root.put("topic", TOPIC);
        root.put("header_key", HEADER_KEY);
        ArrayNode format = root.putArray("format");
        for (String line : FORMAT) {
            format.add(line);
        }
        ObjectNode counts = root.putObject("cases_per_converter");
        g.perConverter.forEach(counts::put);
        root.set("cases", g.cases);

        NeutralJson.write(new File(args[0]), root);
        System.err.println("KafkaConnectConverters: " + g.cases.size() + " cases " + g.perConverter);
    }

    // ------------------------------------------------------------------
    // Typed samples: every Connect type, with a schema
    // ------------------------------------------------------------------

    static List<Sample> typedSamples() {
        List<Sample> s = new ArrayList<>();

        // Integers: both ends of each width, and int64 past 2^53 (no float rounding allowed).
        s.add(new Sample("int8-min", "int8 minimum", Schema.INT8_SCHEMA, Byte.MIN_VALUE));
        s.add(new Sample("int8-max", "int8 maximum", Schema.INT8_SCHEMA, Byte.MAX_VALUE));
        s.add(new Sample("int8-zero", "int8 zero", Schema.INT8_SCHEMA, (byte) 0));
        s.add(new Sample("int16-min", "int16 minimum", Schema.INT16_SCHEMA, Short.MIN_VALUE));
        s.add(new Sample("int16-max", "int16 maximum", Schema.INT16_SCHEMA, Short.MAX_VALUE));
        s.add(new Sample("int32-min", "int32 minimum", Schema.INT32_SCHEMA, Integer.MIN_VALUE));
        s.add(new Sample("int32-max", "int32 maximum", Schema.INT32_SCHEMA, Integer.MAX_VALUE));
        s.add(new Sample("int32-minus-one", "int32 -1", Schema.INT32_SCHEMA, -1));
        s.add(new Sample("int64-min", "int64 minimum", Schema.INT64_SCHEMA, Long.MIN_VALUE));
        s.add(new Sample("int64-max", "int64 maximum", Schema.INT64_SCHEMA, Long.MAX_VALUE));
        s.add(new Sample("int64-2p53-plus-1", "int64 2^53+1: not representable as a double, must stay exact",
            Schema.INT64_SCHEMA, 9007199254740993L));

        // float32: how Java prints floats (plain vs E notation, the 1e-3 and 1e7 boundaries), specials, extremes.
        Object[][] floats = {
            {"1-5", 1.5f, "1.5"},
            {"0-1", 0.1f, "0.1 (not exactly representable)"},
            {"100", 100f, "a whole number: Java prints 100.0"},
            {"1e7", 1e7f, "10^7: the first value Java prints in E notation"},
            {"9999999", 9999999f, "just under 10^7: plain"},
            {"0-001", 0.001f, "10^-3: the smallest plain value"},
            {"0-0001", 0.0001f, "10^-4: E notation"},
            {"123456-79", 123456.79f, "more digits than a float holds"},
            {"1e10", 1e10f, "10^10"},
            {"negative-zero", -0.0f, "-0.0"},
            {"nan", Float.NaN, "NaN"},
            {"infinity", Float.POSITIVE_INFINITY, "+Infinity"},
            {"negative-infinity", Float.NEGATIVE_INFINITY, "-Infinity"},
            {"min-value", Float.MIN_VALUE, "smallest subnormal"},
            {"min-normal", Float.MIN_NORMAL, "smallest normal"},
            {"max-value", Float.MAX_VALUE, "largest finite"},
            {"1e23", 1e23f, "10^23 as a float"},
        };
        for (Object[] f : floats) {
            s.add(new Sample("float32-" + f[0], "float32 " + f[2], Schema.FLOAT32_SCHEMA, f[1]));
        }

        // float64: the same, plus values where Java 17's Double.toString is longer than the shortest
        // round-tripping decimal (JDK-4511638, fixed in Java 19): the bytes depend on the JVM there.
        Object[][] doubles = {
            {"1-5", 1.5, "1.5"},
            {"0-1", 0.1, "0.1 (not exactly representable)"},
            {"one-third", 1.0 / 3, "1/3: 16-17 significant digits"},
            {"100", 100.0, "a whole number: Java prints 100.0"},
            {"1e7", 1e7, "10^7: the first value Java prints in E notation"},
            {"9999999", 9999999.0, "just under 10^7: plain"},
            {"0-001", 0.001, "10^-3: the smallest plain value"},
            {"0-0009", 0.0009, "under 10^-3: E notation (9.0E-4)"},
            {"1e21", 1e21, "10^21"},
            {"1e22", 1e22, "10^22"},
            {"1e23", 1e23, "10^23 (the double nearest 10^23 is below it)"},
            {"2e-3", 2.0e-3, "0.002"},
            {"1e-5", 1.0e-5, "10^-5"},
            {"2-82879384806159e17", 2.82879384806159E17, "2.82879384806159E17: Java 17's Double.toString prints more digits than needed (JDK-4511638)"},
            {"1-0e23-next", Math.nextUp(1e23), "the double after 1e23"},
            {"5e-324", 4.9E-324, "smallest subnormal (Double.MIN_VALUE)"},
            {"min-normal", Double.MIN_NORMAL, "smallest normal"},
            {"max-value", Double.MAX_VALUE, "largest finite"},
            {"2p53", 9007199254740992.0, "2^53"},
            {"negative-zero", -0.0, "-0.0"},
            {"nan", Double.NaN, "NaN"},
            {"infinity", Double.POSITIVE_INFINITY, "+Infinity"},
            {"negative-infinity", Double.NEGATIVE_INFINITY, "-Infinity"},
            {"negative", -123.456, "a negative number"},
        };
        for (Object[] d : doubles) {
            s.add(new Sample("float64-" + d[0], "float64 " + d[2], Schema.FLOAT64_SCHEMA, d[1]));
        }

        s.add(new Sample("boolean-true", "boolean true", Schema.BOOLEAN_SCHEMA, true));
        s.add(new Sample("boolean-false", "boolean false", Schema.BOOLEAN_SCHEMA, false));

        // Strings: escaping rules (control characters, quotes, backslash, slash, DEL, U+2028), unicode.
        s.add(new Sample("string-ascii", "a plain ASCII string", Schema.STRING_SCHEMA, "hello, world"));
        s.add(new Sample("string-empty", "the empty string", Schema.STRING_SCHEMA, ""));
        s.add(new Sample("string-latin1", "accented letters (2-byte UTF-8)", Schema.STRING_SCHEMA, "h\u00e9llo w\u00f6rld \u00e7a"));
        s.add(new Sample("string-cjk", "CJK (3-byte UTF-8)", Schema.STRING_SCHEMA, "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8"));
        s.add(new Sample("string-non-bmp", "characters outside the BMP (4-byte UTF-8, surrogate pairs in Java)",
            Schema.STRING_SCHEMA, "\ud83d\ude00 \ud834\udd1e \ud83c\uddeb\ud83c\uddf7"));
        s.add(new Sample("string-combining", "a combining accent (e + U+0301) beside a precomposed \u00e9",
            Schema.STRING_SCHEMA, "e\u0301 \u00e9"));
        s.add(new Sample("string-control", "every kind of control character: NUL, U+0001, backspace, tab, newline, form feed, carriage return, U+001F",
            Schema.STRING_SCHEMA, "\u0000\u0001\b\t\n\f\r\u001f"));
        s.add(new Sample("string-quotes", "double quote, backslash, slash, single quote",
            Schema.STRING_SCHEMA, "\"quoted\" back\\slash /slash/ 'single'"));
        s.add(new Sample("string-del-and-separators", "DEL (U+007F), LINE SEPARATOR (U+2028), PARAGRAPH SEPARATOR (U+2029), BOM (U+FEFF), NBSP",
            Schema.STRING_SCHEMA, "\u007f\u2028\u2029\ufeff\u00a0"));
        s.add(new Sample("string-json-lookalike", "a string that looks like JSON",
            Schema.STRING_SCHEMA, "{\"a\":[1,2]}"));
        s.add(new Sample("string-number-lookalike", "a string that looks like a number", Schema.STRING_SCHEMA, "42"));
        s.add(new Sample("string-date-lookalike", "a string that looks like an ISO date", Schema.STRING_SCHEMA, "2024-02-29"));

        // Bytes: empty, every base64 padding length, high bytes.
        s.add(new Sample("bytes-empty", "empty bytes", Schema.BYTES_SCHEMA, new byte[0]));
        s.add(new Sample("bytes-one", "one byte (base64 with ==)", Schema.BYTES_SCHEMA, new byte[] {(byte) 0xff}));
        s.add(new Sample("bytes-two", "two bytes (base64 with =)", Schema.BYTES_SCHEMA, new byte[] {0x00, (byte) 0xfe}));
        s.add(new Sample("bytes-three", "three bytes (base64 without padding)", Schema.BYTES_SCHEMA, new byte[] {(byte) 0xfb, (byte) 0xff, (byte) 0xbf}));
        s.add(new Sample("bytes-text", "the UTF-8 of a text", Schema.BYTES_SCHEMA, "hello \u00e9".getBytes(StandardCharsets.UTF_8)));

        // Optional, null, default.
        s.add(new Sample("optional-int32-value", "optional int32 with a value", Schema.OPTIONAL_INT32_SCHEMA, 7));
        s.add(new Sample("optional-int32-null", "optional int32, null", Schema.OPTIONAL_INT32_SCHEMA, null));
        s.add(new Sample("optional-string-null", "optional string, null", Schema.OPTIONAL_STRING_SCHEMA, null));
        s.add(new Sample("optional-bytes-null", "optional bytes, null", Schema.OPTIONAL_BYTES_SCHEMA, null));
        s.add(new Sample("required-int32-null", "required int32 with no default, null: an error", Schema.INT32_SCHEMA, null));
        s.add(new Sample("required-int32-default-null", "required int32 with default 42, null value",
            SchemaBuilder.int32().defaultValue(42).build(), null));
        s.add(new Sample("optional-int32-default-null", "optional int32 with default 42, null value",
            SchemaBuilder.int32().optional().defaultValue(42).build(), null));
        s.add(new Sample("optional-int32-default-value", "optional int32 with default 42, value 7",
            SchemaBuilder.int32().optional().defaultValue(42).build(), 7));
        s.add(new Sample("optional-string-default-null", "optional string with default \"dflt\", null value",
            SchemaBuilder.string().optional().defaultValue("dflt").build(), null));
        s.add(new Sample("optional-bytes-default-null", "optional bytes with a default, null value",
            SchemaBuilder.bytes().optional().defaultValue(new byte[] {1, 2, 3}).build(), null));
        s.add(new Sample("optional-float64-default-nan", "optional float64 whose default is NaN, null value",
            SchemaBuilder.float64().optional().defaultValue(Double.NaN).build(), null));

        // Schema metadata: name, version, doc, parameters (in insertion order), with unicode.
        s.add(new Sample("int32-named", "int32 with name, version, doc and parameters",
            SchemaBuilder.int32().name("com.example.Id").version(3).doc("an identifier, \"quoted\" \u00e9")
                .parameter("zeta", "last").parameter("alpha", "first").parameter("unicode", "\u65e5\u672c").build(),
            12345));
        s.add(new Sample("string-doc-only", "string with a doc and nothing else", SchemaBuilder.string().doc("just a doc").build(), "x"));
        s.add(new Sample("string-version-only", "string with a version and nothing else", SchemaBuilder.string().version(1).build(), "x"));
        s.add(new Sample("string-empty-parameters", "string whose parameters map is empty",
            emptyParameters(SchemaBuilder.string()), "x"));

        // Decimal: scales, signs, sizes, two's-complement boundaries, negative scale, extra parameters, defaults.
        Object[][] decimals = {
            {"scale2", 2, "123.45", "scale 2"},
            {"zero", 0, "0", "zero, scale 0 (unscaled bytes 00)"},
            {"zero-scale2", 2, "0.00", "zero, scale 2"},
            {"negative", 2, "-1.50", "a negative value"},
            {"minus-one", 0, "-1", "-1 (unscaled bytes ff)"},
            {"127", 0, "127", "127 (unscaled bytes 7f)"},
            {"128", 0, "128", "128 (unscaled bytes 0080: a leading zero byte)"},
            {"minus-128", 0, "-128", "-128 (unscaled bytes 80)"},
            {"minus-129", 0, "-129", "-129 (unscaled bytes ff7f)"},
            {"tiny", 10, "0.0000000001", "10^-10, scale 10: BigDecimal prints 1E-10"},
            {"large", 2, "123456789012345678901234567890.12", "32 digits: more than a long or a double holds"},
            {"large-negative", 4, "-98765432109876543210.9876", "a large negative value"},
            {"scale18", 18, "0.000000000000000001", "scale 18"},
        };
        for (Object[] d : decimals) {
            int scale = (Integer) d[1];
            s.add(new Sample("decimal-" + d[0], "Decimal " + d[3], Decimal.schema(scale), new BigDecimal((String) d[2])));
        }
        s.add(new Sample("decimal-negative-scale", "Decimal with scale -2: 1.23E+4 (unscaled 123)",
            Decimal.schema(-2), new BigDecimal(new BigInteger("123"), -2)));
        s.add(new Sample("decimal-precision-parameter", "Decimal with an extra connect.decimal.precision parameter",
            Decimal.builder(3).parameter("connect.decimal.precision", "10").build(), new BigDecimal("3.142")));
        s.add(new Sample("decimal-optional-null", "optional Decimal, null", Decimal.builder(2).optional().build(), null));
        s.add(new Sample("decimal-default-null", "optional Decimal with default 9.99, null value: the default in the schema is a decimal too",
            Decimal.builder(2).optional().defaultValue(new BigDecimal("9.99")).build(), null));
        s.add(new Sample("decimal-wrong-scale", "Decimal scale 2 given a value of scale 3",
            Decimal.schema(2), new BigDecimal("1.234")));
        s.add(new Sample("decimal-wrong-java-type", "Decimal given a Double", Decimal.schema(2), 1.5));

        // Date, Time, Timestamp.
        s.add(new Sample("date-epoch", "Date 1970-01-01 (day 0)", Date.SCHEMA, new java.util.Date(0)));
        s.add(new Sample("date-leap-day", "Date 2024-02-29", Date.SCHEMA, new java.util.Date(19782L * 86400000L)));
        s.add(new Sample("date-before-epoch", "Date 1969-12-31 (day -1)", Date.SCHEMA, new java.util.Date(-86400000L)));
        s.add(new Sample("date-far-future", "Date 9999-12-31", Date.SCHEMA, new java.util.Date(2932896L * 86400000L)));
        s.add(new Sample("date-with-time", "Date given an instant that is not midnight UTC: an error",
            Date.SCHEMA, new java.util.Date(19782L * 86400000L + 1000)));
        s.add(new Sample("date-optional-null", "optional Date, null", Date.builder().optional().build(), null));
        s.add(new Sample("time-midnight", "Time 00:00:00.000", Time.SCHEMA, new java.util.Date(0)));
        s.add(new Sample("time-afternoon", "Time 12:34:56.789", Time.SCHEMA, new java.util.Date(45296789L)));
        s.add(new Sample("time-last-ms", "Time 23:59:59.999", Time.SCHEMA, new java.util.Date(86399999L)));
        s.add(new Sample("time-with-date", "Time given an instant on another day: an error",
            Time.SCHEMA, new java.util.Date(86400000L + 5)));
        s.add(new Sample("timestamp-epoch", "Timestamp 0", Timestamp.SCHEMA, new java.util.Date(0)));
        s.add(new Sample("timestamp-millis", "Timestamp 2024-02-29T12:34:56.789Z", Timestamp.SCHEMA, new java.util.Date(1709210096789L)));
        s.add(new Sample("timestamp-midnight", "Timestamp 2024-02-29T00:00:00.000Z (a whole day)", Timestamp.SCHEMA, new java.util.Date(1709164800000L)));
        s.add(new Sample("timestamp-half-second", "Timestamp 1970-01-01T00:00:00.500Z (under one day)", Timestamp.SCHEMA, new java.util.Date(500L)));
        s.add(new Sample("timestamp-before-epoch", "Timestamp 1969-12-31T23:59:59.999Z (-1 ms)", Timestamp.SCHEMA, new java.util.Date(-1L)));
        s.add(new Sample("timestamp-far-future", "Timestamp 9999-12-31T23:59:59.999Z", Timestamp.SCHEMA, new java.util.Date(253402300799999L)));
        s.add(new Sample("timestamp-default-null", "optional Timestamp with a default, null value",
            Timestamp.builder().optional().defaultValue(new java.util.Date(1000L)).build(), null));
        s.add(new Sample("date-wrong-java-type", "Date given an Integer (the underlying int32) instead of a java.util.Date",
            Date.SCHEMA, 19782));
        s.add(new Sample("int64-named-timestamp-long", "int64 named org.apache.kafka.connect.data.Timestamp given a Long",
            Timestamp.SCHEMA, 0L));

        // Arrays.
        Schema int32Array = SchemaBuilder.array(Schema.INT32_SCHEMA).build();
        Schema optInt32Array = SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).build();
        s.add(new Sample("array-int32", "array of int32", int32Array, List.of(1, 2, 3)));
        s.add(new Sample("array-empty", "empty array", int32Array, List.of()));
        s.add(new Sample("array-optional-elements-null", "array of optional int32 with a null element", optInt32Array, Arrays.asList(1, null, 3)));
        s.add(new Sample("array-required-elements-null", "array of required int32 with a null element: an error", int32Array, Arrays.asList(1, null, 3)));
        s.add(new Sample("array-string", "array of strings (unicode, empty)", SchemaBuilder.array(Schema.STRING_SCHEMA).build(),
            List.of("a", "", "\u00e9\ud83d\ude00")));
        s.add(new Sample("array-of-arrays", "array of arrays of int64", SchemaBuilder.array(SchemaBuilder.array(Schema.INT64_SCHEMA).build()).build(),
            List.of(List.of(1L, 2L), List.of(), List.of(3L))));
        s.add(new Sample("array-bytes", "array of bytes", SchemaBuilder.array(Schema.BYTES_SCHEMA).build(),
            List.of(new byte[] {1}, new byte[0])));
        s.add(new Sample("array-float64-specials", "array of float64 with NaN and infinities", SchemaBuilder.array(Schema.FLOAT64_SCHEMA).build(),
            List.of(1.0, Double.NaN, Double.NEGATIVE_INFINITY, -0.0)));
        s.add(new Sample("array-decimal", "array of Decimal scale 1", SchemaBuilder.array(Decimal.schema(1)).build(),
            List.of(new BigDecimal("1.5"), new BigDecimal("-0.1"))));
        s.add(new Sample("array-with-default", "optional array with a default [1, 2], null value",
            SchemaBuilder.array(Schema.INT32_SCHEMA).optional().defaultValue(List.of(1, 2)).build(), null));
        s.add(new Sample("array-named", "array with a name and doc",
            SchemaBuilder.array(Schema.BOOLEAN_SCHEMA).name("golden.Flags").doc("flags").build(), List.of(true, false)));
        s.add(new Sample("array-given-map", "array schema given a Map: an error", int32Array, new LinkedHashMap<>(Map.of("a", 1))));

        // Maps: string keys become a JSON object, any other key type an array of [key, value] pairs.
        Schema strToInt = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build();
        s.add(new Sample("map-string-int32", "map string -> int32 (JSON object, insertion order)", strToInt, linked("b", 2, "a", 1, "c", 3)));
        s.add(new Sample("map-empty", "empty map with string keys", strToInt, new LinkedHashMap<>()));
        s.add(new Sample("map-string-optional-null", "map string -> optional string with a null value",
            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).build(), linked("k", null, "l", "v")));
        s.add(new Sample("map-string-required-null", "map string -> required string with a null value: an error",
            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build(), linked("k", null)));
        s.add(new Sample("map-optional-string-null-key", "map optional string -> int32 with a null key",
            SchemaBuilder.map(Schema.OPTIONAL_STRING_SCHEMA, Schema.INT32_SCHEMA).build(), linked(null, 1, "null", 2)));
        s.add(new Sample("map-unicode-keys", "map with keys needing escapes and non-BMP characters", strToInt,
            linked("\"q\"", 1, "tab\t", 2, "\ud83d\ude00", 3, "", 4)));
        Schema intToStr = SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build();
        s.add(new Sample("map-int32-keys", "map int32 -> string (array of pairs)", intToStr, linked(2, "two", 1, "one", -1, "minus one")));
        s.add(new Sample("map-int32-keys-empty", "empty map with int32 keys (an empty JSON array)", intToStr, new LinkedHashMap<>()));
        s.add(new Sample("map-boolean-keys", "map boolean -> int8", SchemaBuilder.map(Schema.BOOLEAN_SCHEMA, Schema.INT8_SCHEMA).build(),
            linked(true, (byte) 1, false, (byte) 0)));
        s.add(new Sample("map-bytes-keys", "map bytes -> string (keys base64 in pairs)", SchemaBuilder.map(Schema.BYTES_SCHEMA, Schema.STRING_SCHEMA).build(),
            linked(new byte[] {1, 2}, "x")));
        s.add(new Sample("map-float64-keys", "map float64 -> string", SchemaBuilder.map(Schema.FLOAT64_SCHEMA, Schema.STRING_SCHEMA).build(),
            linked(1.5, "x", Double.NaN, "nan")));
        s.add(new Sample("map-decimal-keys", "map Decimal -> int32", SchemaBuilder.map(Decimal.schema(1), Schema.INT32_SCHEMA).build(),
            linked(new BigDecimal("1.0"), 1)));
        Schema point = SchemaBuilder.struct().name("golden.Point").field("x", Schema.INT32_SCHEMA).field("y", Schema.INT32_SCHEMA).build();
        s.add(new Sample("map-string-struct", "map string -> struct", SchemaBuilder.map(Schema.STRING_SCHEMA, point).build(),
            linked("origin", new Struct(point).put("x", 0).put("y", 0), "p", new Struct(point).put("x", 1).put("y", -1))));
        s.add(new Sample("map-struct-keys", "map struct -> string", SchemaBuilder.map(point, Schema.STRING_SCHEMA).build(),
            linked(new Struct(point).put("x", 1).put("y", 2), "a")));
        s.add(new Sample("map-string-array", "map string -> array of int32", SchemaBuilder.map(Schema.STRING_SCHEMA, int32Array).build(),
            linked("a", List.of(1, 2), "b", List.of())));
        s.add(new Sample("map-int64-array", "map int64 -> array of strings", SchemaBuilder.map(Schema.INT64_SCHEMA, SchemaBuilder.array(Schema.STRING_SCHEMA).build()).build(),
            linked(10L, List.of("x"), 20L, List.of())));
        s.add(new Sample("map-of-maps", "map string -> map int32 -> string", SchemaBuilder.map(Schema.STRING_SCHEMA, intToStr).build(),
            linked("outer", linked(1, "inner"))));
        s.add(new Sample("map-with-default", "optional map with a default, null value",
            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).optional().defaultValue(linked("d", 1)).build(), null));

        // Structs.
        Schema flat = SchemaBuilder.struct().name("golden.Flat").version(2).doc("one field of each primitive type")
            .field("i8", Schema.INT8_SCHEMA).field("i16", Schema.INT16_SCHEMA).field("i32", Schema.INT32_SCHEMA)
            .field("i64", Schema.INT64_SCHEMA).field("f32", Schema.FLOAT32_SCHEMA).field("f64", Schema.FLOAT64_SCHEMA)
            .field("bool", Schema.BOOLEAN_SCHEMA).field("str", Schema.STRING_SCHEMA).field("bytes", Schema.BYTES_SCHEMA)
            .build();
        s.add(new Sample("struct-flat", "struct with one field of each primitive type", flat,
            new Struct(flat).put("i8", (byte) -8).put("i16", (short) -16).put("i32", -32).put("i64", -64L)
                .put("f32", 3.25f).put("f64", -2.5e-8).put("bool", true).put("str", "s\u00e9").put("bytes", new byte[] {0x7f})));
        Schema logical = SchemaBuilder.struct().name("golden.Logical")
            .field("amount", Decimal.schema(2)).field("day", Date.SCHEMA).field("at", Time.SCHEMA).field("ts", Timestamp.SCHEMA).build();
        s.add(new Sample("struct-logical", "struct with Decimal, Date, Time, Timestamp fields", logical,
            new Struct(logical).put("amount", new BigDecimal("10.01")).put("day", new java.util.Date(19782L * 86400000L))
                .put("at", new java.util.Date(3600000L)).put("ts", new java.util.Date(1709210096789L))));
        Schema optionals = SchemaBuilder.struct().name("golden.Optionals")
            .field("req", Schema.STRING_SCHEMA).field("opt", Schema.OPTIONAL_STRING_SCHEMA)
            .field("opt_default", SchemaBuilder.int32().optional().defaultValue(5).build())
            .field("req_default", SchemaBuilder.string().defaultValue("d").build())
            .build();
        s.add(new Sample("struct-nulls-and-defaults", "struct with an optional field left null and fields with defaults left null",
            optionals, new Struct(optionals).put("req", "r")));
        s.add(new Sample("struct-defaults-set", "the same struct with every field set",
            optionals, new Struct(optionals).put("req", "r").put("opt", "o").put("opt_default", 6).put("req_default", "e")));
        s.add(new Sample("struct-required-missing", "struct whose required field (no default) is left null: an error",
            optionals, new Struct(optionals).put("opt", "o")));
        Schema inner = SchemaBuilder.struct().name("golden.Inner").field("v", Schema.OPTIONAL_INT64_SCHEMA).build();
        Schema outer = SchemaBuilder.struct().name("golden.Outer")
            .field("inner", inner).field("maybe", SchemaBuilder.struct().name("golden.Inner2").optional().field("w", Schema.STRING_SCHEMA).build())
            .field("list", SchemaBuilder.array(inner).build())
            .field("by_name", SchemaBuilder.map(Schema.STRING_SCHEMA, SchemaBuilder.array(Schema.INT32_SCHEMA).build()).build())
            .build();
        s.add(new Sample("struct-nested", "nested struct, optional struct left null, array of structs, map of arrays", outer,
            new Struct(outer).put("inner", new Struct(inner).put("v", 1L))
                .put("list", List.of(new Struct(inner).put("v", 2L), new Struct(inner)))
                .put("by_name", linked("x", List.of(1, 2), "y", List.of()))));
        Schema empty = SchemaBuilder.struct().build();
        s.add(new Sample("struct-empty", "struct with no fields", empty, new Struct(empty)));
        Schema odd = SchemaBuilder.struct().field("with space", Schema.INT32_SCHEMA).field("\"quoted\"", Schema.INT32_SCHEMA)
            .field("\u00e9\ud83d\ude00", Schema.INT32_SCHEMA).build();
        s.add(new Sample("struct-odd-field-names", "struct with field names needing escapes and non-ASCII", odd,
            new Struct(odd).put("with space", 1).put("\"quoted\"", 2).put("\u00e9\ud83d\ude00", 3)));
        Schema optStruct = SchemaBuilder.struct().name("golden.Opt").optional().field("a", Schema.INT32_SCHEMA).build();
        s.add(new Sample("struct-optional-null", "optional struct, null", optStruct, null));
        // A struct-typed default: the default's Struct must have the schema being built, so it is made
        // on the SchemaBuilder itself (ConnectSchema.equals does not accept a builder).
        SchemaBuilder withDefaultBuilder = SchemaBuilder.struct().name("golden.WithDefault").optional().field("a", Schema.INT32_SCHEMA);
        withDefaultBuilder.defaultValue(new Struct(withDefaultBuilder).put("a", 7));
        Schema withDefault = withDefaultBuilder.build();
        s.add(new Sample("struct-default-null", "optional struct whose schema has a struct default, null value", withDefault, null));
        Schema otherPoint = SchemaBuilder.struct().name("golden.OtherPoint").field("x", Schema.INT32_SCHEMA).field("y", Schema.INT32_SCHEMA).build();
        s.add(new Sample("struct-mismatching-schema", "struct schema given a Struct of another schema: an error",
            point, new Struct(otherPoint).put("x", 1).put("y", 2)));

        // Values whose Java type does not match the schema.
        s.add(new Sample("mismatch-int32-long", "int32 schema given a Long", Schema.INT32_SCHEMA, 1L));
        s.add(new Sample("mismatch-string-integer", "string schema given an Integer", Schema.STRING_SCHEMA, 1));
        s.add(new Sample("mismatch-bytes-string", "bytes schema given a String", Schema.BYTES_SCHEMA, "AQID"));
        s.add(new Sample("mismatch-boolean-string", "boolean schema given the String \"true\"", Schema.BOOLEAN_SCHEMA, "true"));
        s.add(new Sample("mismatch-float32-double", "float32 schema given a Double", Schema.FLOAT32_SCHEMA, 1.5));
        s.add(new Sample("mismatch-map-list", "map schema given a List", strToInt, new ArrayList<>(List.of(1))));
        s.add(new Sample("mismatch-struct-map", "struct schema given a Map", point, linked("x", 1, "y", 2)));
        return s;
    }

    // Schemaless values (schema null): what JsonConverter infers from the Java classes.
    static List<Sample> schemalessSamples() {
        List<Sample> s = new ArrayList<>();
        s.add(new Sample("schemaless-null", "no schema, null value (a Kafka null)", null, null));
        s.add(new Sample("schemaless-boolean", "no schema, Boolean", null, true));
        s.add(new Sample("schemaless-byte", "no schema, Byte", null, (byte) 7));
        s.add(new Sample("schemaless-short", "no schema, Short", null, (short) -300));
        s.add(new Sample("schemaless-integer", "no schema, Integer", null, 42));
        s.add(new Sample("schemaless-long", "no schema, Long", null, Long.MAX_VALUE));
        s.add(new Sample("schemaless-float", "no schema, Float", null, 0.1f));
        s.add(new Sample("schemaless-double", "no schema, Double", null, 2.5));
        s.add(new Sample("schemaless-double-whole", "no schema, Double 1.0", null, 1.0));
        s.add(new Sample("schemaless-double-nan", "no schema, Double NaN", null, Double.NaN));
        s.add(new Sample("schemaless-string", "no schema, String", null, "text \u00e9"));
        s.add(new Sample("schemaless-empty-string", "no schema, empty String", null, ""));
        s.add(new Sample("schemaless-bytes", "no schema, byte[]", null, new byte[] {0, 1, 2, (byte) 0xff}));
        s.add(new Sample("schemaless-list", "no schema, List of mixed types with a null", null, Arrays.asList(1, "a", true, null, 2.5, 3L)));
        s.add(new Sample("schemaless-empty-list", "no schema, empty List", null, List.of()));
        s.add(new Sample("schemaless-map", "no schema, Map with String keys, nested", null,
            linked("a", 1, "b", List.of(1, 2), "c", linked("d", null, "e", "f"))));
        s.add(new Sample("schemaless-empty-map", "no schema, empty Map", null, new LinkedHashMap<>()));
        s.add(new Sample("schemaless-map-int-keys", "no schema, Map with Integer keys (array of pairs)", null, linked(1, "a", 2, "b")));
        s.add(new Sample("schemaless-map-mixed-keys", "no schema, Map with a String and an Integer key", null, linked("a", 1, 2, "b")));
        s.add(new Sample("schemaless-struct", "no schema, a Struct: an error", null,
            new Struct(SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build()).put("a", 1)));
        s.add(new Sample("schemaless-bigdecimal", "no schema, a BigDecimal: an error", null, new BigDecimal("1.5")));
        s.add(new Sample("schemaless-date", "no schema, a java.util.Date: an error", null, new java.util.Date(0)));
        s.add(new Sample("schemaless-list-of-null", "no schema, a List holding one null", null, Arrays.asList((Object) null)));
        return s;
    }

    // ------------------------------------------------------------------
    // JsonConverter
    // ------------------------------------------------------------------

    void jsonConverterCases(List<Sample> typed, List<Sample> schemaless) {
        List<Sample> all = new ArrayList<>(typed);
        all.addAll(schemaless);
        // Every sample, with the default settings (schemas.enable=true, decimal.format=BASE64,
        // replace.null.with.default=true) and with schemas.enable=false.
        Conv withSchemas = Conv.of("json", JSON, "value");
        Conv noSchemas = Conv.of("json-schemas-false", JSON, "value", "schemas.enable", "false");
        for (Sample x : all) {
            encode(withSchemas, x);
        }
        for (Sample x : all) {
            encode(noSchemas, x);
        }
        // decimal.format=NUMERIC: the samples with a Decimal anywhere.
        Predicate<Sample> hasDecimal = x -> mentions(x.schema(), sc -> Decimal.LOGICAL_NAME.equals(sc.name())) || x.value() instanceof BigDecimal;
        Conv numeric = Conv.of("json-decimal-numeric", JSON, "value", "decimal.format", "NUMERIC");
        Conv numericNoSchemas = Conv.of("json-decimal-numeric-schemas-false", JSON, "value", "decimal.format", "NUMERIC", "schemas.enable", "false");
        Conv numericLower = Conv.of("json-decimal-numeric-lowercase", JSON, "value", "decimal.format", "numeric");
        for (Sample x : all) {
            if (hasDecimal.test(x)) {
                encode(numeric, x);
                encode(numericNoSchemas, x);
            }
        }
        encode(numericLower, find(all, "decimal-scale2"));
        // replace.null.with.default=false: the samples with a default anywhere.
        Predicate<Sample> hasDefault = x -> mentions(x.schema(), sc -> sc.defaultValue() != null);
        Conv keepNull = Conv.of("json-replace-null-false", JSON, "value", "replace.null.with.default", "false");
        Conv keepNullNoSchemas = Conv.of("json-replace-null-false-schemas-false", JSON, "value", "replace.null.with.default", "false", "schemas.enable", "false");
        for (Sample x : all) {
            if (hasDefault.test(x)) {
                encode(keepNull, x);
                encode(keepNullNoSchemas, x);
            }
        }
        // As a key converter and as a header converter: JsonConverter does not change with the role.
        List<String> roleSubset = List.of("int32-max", "float64-0-1", "string-non-bmp", "decimal-scale2", "struct-nested",
            "map-int32-keys", "optional-int32-null", "schemaless-null", "schemaless-map");
        Conv key = Conv.of("json-key", JSON, "key");
        Conv keyNoSchemas = Conv.of("json-key-schemas-false", JSON, "key", "schemas.enable", "false");
        Conv header = Conv.of("json-header", JSON, "header");
        Conv headerNoSchemas = Conv.of("json-header-schemas-false", JSON, "header", "schemas.enable", "false");
        for (String id : roleSubset) {
            Sample x = find(all, id);
            encode(key, x);
            encode(keyNoSchemas, x);
            encode(header, x);
            encode(headerNoSchemas, x);
        }
        // schema.content (a fixed schema for decoding) does not change encoding: still an envelope.
        Conv content = Conv.of("json-schema-content", JSON, "value", "schema.content", "{\"type\":\"int32\",\"optional\":false}");
        encode(content, find(all, "int32-max"));
        // Settings Kafka Connect refuses.
        encode(Conv.of("json-bad-decimal-format", JSON, "value", "decimal.format", "HEX"), find(all, "decimal-scale2"));
        encode(Conv.of("json-bad-schemas-enable", JSON, "value", "schemas.enable", "yes"), find(all, "int32-max"));
    }

    /** Bytes JsonConverter accepts or rejects (toConnectData). */
    void jsonDecodeCases() {
        Conv on = Conv.of("json-decode", JSON, "value");
        Conv off = Conv.of("json-decode-schemas-false", JSON, "value", "schemas.enable", "false");
        Conv keepNull = Conv.of("json-decode-replace-null-false", JSON, "value", "replace.null.with.default", "false");

        // Envelope layout: key order, whitespace, byte order marks and UTF-16/32 (Jackson detects the encoding).
        String int32Envelope = "{\"schema\":{\"type\":\"int32\",\"optional\":false},\"payload\":42}";
        decode(on, "envelope-int32", "a minimal envelope", utf8(int32Envelope));
        decode(on, "envelope-payload-first", "payload before schema", utf8("{\"payload\":42,\"schema\":{\"optional\":false,\"type\":\"int32\"}}"));
        decode(on, "envelope-whitespace", "pretty-printed, with tabs, CRLF and trailing newline",
            utf8("{\r\n\t\"schema\" : {\n  \"type\" : \"int32\" ,\"optional\": false } ,\n\"payload\" :\t42 }\n"));
        decode(on, "envelope-utf8-bom", "a UTF-8 byte order mark before the JSON", concat(new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, utf8(int32Envelope)));
        decode(on, "envelope-utf16be", "the envelope in UTF-16BE without a byte order mark", int32Envelope.getBytes(StandardCharsets.UTF_16BE));
        decode(on, "envelope-utf16le-bom", "the envelope in UTF-16LE with a byte order mark",
            concat(new byte[] {(byte) 0xff, (byte) 0xfe}, int32Envelope.getBytes(StandardCharsets.UTF_16LE)));
        decode(on, "envelope-utf32be", "the envelope in UTF-32BE", int32Envelope.getBytes(java.nio.charset.Charset.forName("UTF-32BE")));
        decode(on, "envelope-trailing-garbage", "a second JSON value after the envelope", utf8(int32Envelope + " 43"));
        decode(on, "envelope-trailing-junk", "non-JSON text after the envelope", utf8(int32Envelope + "xyz"));
        decode(on, "envelope-duplicate-payload", "payload twice: the last one wins",
            utf8("{\"schema\":{\"type\":\"int32\"},\"payload\":1,\"payload\":2}"));
        decode(on, "envelope-schema-null", "schema null: the payload is read as schemaless JSON",
            utf8("{\"schema\":null,\"payload\":{\"a\":[1,2.5,\"x\",null,true]}}"));
        decode(on, "envelope-schema-null-payload-null", "schema null, payload null", utf8("{\"schema\":null,\"payload\":null}"));

        // Envelope errors.
        decode(on, "envelope-missing-payload", "schema only: an error", utf8("{\"schema\":{\"type\":\"int32\"}}"));
        decode(on, "envelope-missing-schema", "payload only: an error", utf8("{\"payload\":42}"));
        decode(on, "envelope-extra-field", "a third top-level field: an error", utf8("{\"schema\":{\"type\":\"int32\"},\"payload\":42,\"extra\":1}"));
        decode(on, "envelope-not-object", "plain JSON with schemas.enable=true: an error", utf8("42"));
        decode(on, "envelope-plain-object", "a plain object with schemas.enable=true: an error", utf8("{\"a\":1}"));
        decode(on, "envelope-json-null", "the JSON null with schemas.enable=true: an error", utf8("null"));
        decode(on, "envelope-empty-bytes", "empty bytes with schemas.enable=true", new byte[0]);
        decode(on, "envelope-whitespace-only", "only whitespace with schemas.enable=true", utf8("  \n"));
        decode(on, "kafka-null", "a Kafka null (null bytes)", null);
        decode(on, "invalid-json", "not JSON", utf8("{\"schema\":"));
        decode(on, "invalid-json-single-quotes", "single-quoted JSON", utf8("{'schema':null,'payload':1}"));
        decode(on, "invalid-json-comment", "JSON with a comment", utf8("/* c */{\"schema\":null,\"payload\":1}"));
        decode(on, "invalid-json-nan-token", "the bare token NaN as payload", utf8("{\"schema\":{\"type\":\"double\"},\"payload\":NaN}"));
        decode(on, "invalid-utf8", "bytes that are not UTF-8 inside a string", concat(utf8("{\"schema\":{\"type\":\"string\"},\"payload\":\""), new byte[] {(byte) 0xc3, 0x28}, utf8("\"}")));
        decode(on, "leading-zeros", "a number with leading zeros (Kafka Connect enables ALLOW_LEADING_ZEROS_FOR_NUMBERS)",
            utf8("{\"schema\":{\"type\":\"int32\"},\"payload\":007}"));

        // Schema parsing.
        decode(on, "schema-all-types", "a struct schema with every type, names, versions, docs and parameters",
            utf8("{\"schema\":{\"type\":\"struct\",\"name\":\"n\",\"version\":1,\"doc\":\"d\",\"parameters\":{\"p\":\"v\"},\"optional\":false,\"fields\":["
                + "{\"field\":\"i8\",\"type\":\"int8\"},{\"field\":\"i16\",\"type\":\"int16\"},{\"field\":\"i32\",\"type\":\"int32\"},"
                + "{\"field\":\"i64\",\"type\":\"int64\"},{\"field\":\"f\",\"type\":\"float\"},{\"field\":\"d\",\"type\":\"double\"},"
                + "{\"field\":\"b\",\"type\":\"boolean\"},{\"field\":\"s\",\"type\":\"string\"},{\"field\":\"y\",\"type\":\"bytes\"},"
                + "{\"field\":\"a\",\"type\":\"array\",\"items\":{\"type\":\"int32\"}},"
                + "{\"field\":\"m\",\"type\":\"map\",\"keys\":{\"type\":\"string\"},\"values\":{\"type\":\"int32\",\"optional\":true}}]},"
                + "\"payload\":{\"i8\":1,\"i16\":2,\"i32\":3,\"i64\":4,\"f\":5.5,\"d\":6.5,\"b\":true,\"s\":\"x\",\"y\":\"AQI=\",\"a\":[1],\"m\":{\"k\":null}}}"));
        decode(on, "schema-optional-missing", "no optional key: the schema is required", utf8("{\"schema\":{\"type\":\"string\"},\"payload\":\"x\"}"));
        decode(on, "schema-optional-string", "optional given as the string \"true\": the schema is required",
            utf8("{\"schema\":{\"type\":\"string\",\"optional\":\"true\"},\"payload\":null}"));
        decode(on, "schema-version-float", "a non-integral version is ignored", utf8("{\"schema\":{\"type\":\"string\",\"version\":1.5},\"payload\":\"x\"}"));
        decode(on, "schema-name-number", "a non-text name is ignored", utf8("{\"schema\":{\"type\":\"string\",\"name\":5},\"payload\":\"x\"}"));
        decode(on, "schema-parameter-not-string", "a parameter whose value is not a string: an error",
            utf8("{\"schema\":{\"type\":\"string\",\"parameters\":{\"p\":1}},\"payload\":\"x\"}"));
        decode(on, "schema-unknown-type", "type float32 (JsonConverter says float): an error", utf8("{\"schema\":{\"type\":\"float32\"},\"payload\":1}"));
        decode(on, "schema-no-type", "no type: an error", utf8("{\"schema\":{\"optional\":true},\"payload\":1}"));
        decode(on, "schema-type-not-text", "type is a number: an error", utf8("{\"schema\":{\"type\":5},\"payload\":1}"));
        decode(on, "schema-array-no-items", "array without items: an error", utf8("{\"schema\":{\"type\":\"array\"},\"payload\":[]}"));
        decode(on, "schema-map-no-keys", "map without keys: an error", utf8("{\"schema\":{\"type\":\"map\",\"values\":{\"type\":\"int32\"}},\"payload\":{}}"));
        decode(on, "schema-map-no-values", "map without values: an error", utf8("{\"schema\":{\"type\":\"map\",\"keys\":{\"type\":\"string\"}},\"payload\":{}}"));
        decode(on, "schema-struct-no-fields", "struct without fields: an error", utf8("{\"schema\":{\"type\":\"struct\"},\"payload\":{}}"));
        decode(on, "schema-struct-field-no-name", "a struct field without a name: an error",
            utf8("{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\"}]},\"payload\":{}}"));
        decode(on, "schema-default-int", "an optional int32 with a default, payload null", utf8("{\"schema\":{\"type\":\"int32\",\"optional\":true,\"default\":7},\"payload\":null}"));
        decode(keepNull, "schema-default-int", "the same with replace.null.with.default=false", utf8("{\"schema\":{\"type\":\"int32\",\"optional\":true,\"default\":7},\"payload\":null}"));
        decode(on, "schema-default-required", "a required int32 with a default, payload null", utf8("{\"schema\":{\"type\":\"int32\",\"optional\":false,\"default\":7},\"payload\":null}"));
        decode(keepNull, "schema-default-required", "the same with replace.null.with.default=false", utf8("{\"schema\":{\"type\":\"int32\",\"optional\":false,\"default\":7},\"payload\":null}"));
        decode(on, "schema-default-struct", "a struct schema with a struct default",
            utf8("{\"schema\":{\"type\":\"struct\",\"optional\":true,\"fields\":[{\"field\":\"a\",\"type\":\"int32\"}],\"default\":{\"a\":7}},\"payload\":null}"));
        decode(on, "schema-default-wrong-type", "a default that does not match the type (text for int32)",
            utf8("{\"schema\":{\"type\":\"int32\",\"optional\":true,\"default\":\"x\"},\"payload\":null}"));
        decode(on, "schema-default-null", "default given as JSON null", utf8("{\"schema\":{\"type\":\"int32\",\"optional\":true,\"default\":null},\"payload\":null}"));

        // Payloads that do not match the schema: some are errors, some are silently coerced by Jackson.
        String[][] coerce = {
            {"float64-int", "double", "1", "float64 given 1"},
            {"float64-decimal", "double", "1.0", "float64 given 1.0"},
            {"float64-exponent", "double", "1E+2", "float64 given 1E+2"},
            {"float64-huge", "double", "1e400", "float64 given 1e400 (out of range)"},
            {"float64-negative-zero", "double", "-0.0", "float64 given -0.0"},
            {"float64-nan-string", "double", "\"NaN\"", "float64 given the string \"NaN\" (how Jackson writes NaN)"},
            {"float64-infinity-string", "double", "\"Infinity\"", "float64 given the string \"Infinity\""},
            {"float32-int", "float", "1", "float32 given 1"},
            {"float32-many-digits", "float", "0.1000000000000000055511151231257827", "float32 given many digits"},
            {"float32-out-of-range", "float", "1e39", "float32 given 1e39"},
            {"int8-overflow", "int8", "300", "int8 given 300"},
            {"int16-overflow", "int16", "70000", "int16 given 70000"},
            {"int32-overflow", "int32", "3000000000", "int32 given 3000000000"},
            {"int32-fraction", "int32", "1.9", "int32 given 1.9"},
            {"int32-exponent", "int32", "1e2", "int32 given 1e2"},
            {"int32-string", "int32", "\"42\"", "int32 given the string \"42\""},
            {"int32-boolean", "int32", "true", "int32 given true"},
            {"int64-overflow", "int64", "18446744073709551617", "int64 given 2^64+1"},
            {"int64-float", "int64", "1.5e3", "int64 given 1.5e3"},
            {"boolean-number", "boolean", "1", "boolean given 1"},
            {"boolean-string", "boolean", "\"true\"", "boolean given the string \"true\""},
            {"string-number", "string", "5", "string given 5"},
            {"string-object", "string", "{}", "string given an object"},
            {"bytes-number", "bytes", "5", "bytes given 5"},
            {"bytes-unpadded", "bytes", "\"AQI\"", "bytes given base64 without padding"},
            {"bytes-urlsafe", "bytes", "\"-_8=\"", "bytes given URL-safe base64"},
            {"bytes-invalid", "bytes", "\"!!!!\"", "bytes given text that is not base64"},
            {"bytes-whitespace", "bytes", "\"AQ ID\"", "bytes given base64 with a space inside"},
            {"bytes-empty-string", "bytes", "\"\"", "bytes given the empty string"},
        };
        for (String[] c : coerce) {
            decode(on, "payload-" + c[0], c[3], utf8("{\"schema\":{\"type\":\"" + c[1] + "\"},\"payload\":" + c[2] + "}"));
        }
        decode(on, "payload-array-number", "array given 5",
            utf8("{\"schema\":{\"type\":\"array\",\"items\":{\"type\":\"int32\"}},\"payload\":5}"));
        decode(on, "payload-array-object", "array given an object",
            utf8("{\"schema\":{\"type\":\"array\",\"items\":{\"type\":\"int32\"}},\"payload\":{\"a\":1}}"));
        decode(on, "payload-array-null-element", "array of required int32 with a null element",
            utf8("{\"schema\":{\"type\":\"array\",\"items\":{\"type\":\"int32\"}},\"payload\":[1,null]}"));
        decode(on, "payload-map-string-keys-array", "map with string keys given an array",
            utf8("{\"schema\":{\"type\":\"map\",\"keys\":{\"type\":\"string\"},\"values\":{\"type\":\"int32\"}},\"payload\":[[\"a\",1]]}"));
        decode(on, "payload-map-int-keys-object", "map with int32 keys given an object",
            utf8("{\"schema\":{\"type\":\"map\",\"keys\":{\"type\":\"int32\"},\"values\":{\"type\":\"int32\"}},\"payload\":{\"1\":1}}"));
        decode(on, "payload-map-int-keys-pairs", "map with int32 keys given pairs",
            utf8("{\"schema\":{\"type\":\"map\",\"keys\":{\"type\":\"int32\"},\"values\":{\"type\":\"string\"}},\"payload\":[[1,\"a\"],[2,\"b\"],[1,\"c\"]]}"));
        decode(on, "payload-map-entry-not-array", "map with int32 keys, an entry that is not a pair",
            utf8("{\"schema\":{\"type\":\"map\",\"keys\":{\"type\":\"int32\"},\"values\":{\"type\":\"int32\"}},\"payload\":[1]}"));
        decode(on, "payload-map-entry-three", "map with int32 keys, an entry of three elements",
            utf8("{\"schema\":{\"type\":\"map\",\"keys\":{\"type\":\"int32\"},\"values\":{\"type\":\"int32\"}},\"payload\":[[1,2,3]]}"));
        decode(on, "payload-map-duplicate-keys", "map with string keys, a key twice: the last one wins",
            utf8("{\"schema\":{\"type\":\"map\",\"keys\":{\"type\":\"string\"},\"values\":{\"type\":\"int32\"}},\"payload\":{\"a\":1,\"a\":2}}"));
        String pointSchema = "{\"type\":\"struct\",\"name\":\"P\",\"fields\":[{\"field\":\"x\",\"type\":\"int32\"},{\"field\":\"y\",\"type\":\"int32\",\"optional\":true}]}";
        decode(on, "payload-struct-array", "struct given an array", utf8("{\"schema\":" + pointSchema + ",\"payload\":[1,2]}"));
        decode(on, "payload-struct-extra-field", "struct given an extra field: ignored", utf8("{\"schema\":" + pointSchema + ",\"payload\":{\"x\":1,\"y\":2,\"z\":3}}"));
        decode(on, "payload-struct-missing-optional", "struct with an optional field missing", utf8("{\"schema\":" + pointSchema + ",\"payload\":{\"x\":1}}"));
        decode(on, "payload-struct-missing-required", "struct with a required field missing: an error", utf8("{\"schema\":" + pointSchema + ",\"payload\":{\"y\":1}}"));
        decode(on, "payload-null-required", "a required int32 given null: an error", utf8("{\"schema\":{\"type\":\"int32\",\"optional\":false},\"payload\":null}"));
        decode(on, "payload-null-optional", "an optional int32 given null", utf8("{\"schema\":{\"type\":\"int32\",\"optional\":true},\"payload\":null}"));

        // Logical types.
        String dec2 = "{\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"version\":1,\"parameters\":{\"scale\":\"2\"}}";
        decode(on, "decimal-base64", "Decimal scale 2 from base64 (unscaled 12345)", utf8("{\"schema\":" + dec2 + ",\"payload\":\"MDk=\"}"));
        decode(on, "decimal-numeric", "Decimal scale 2 from a JSON number (accepted whatever decimal.format says)", utf8("{\"schema\":" + dec2 + ",\"payload\":123.45}"));
        decode(on, "decimal-numeric-other-scale", "Decimal scale 2 from a JSON number of another scale: not rescaled", utf8("{\"schema\":" + dec2 + ",\"payload\":1}"));
        decode(on, "decimal-numeric-exponent", "Decimal scale 2 from 1.5E+3", utf8("{\"schema\":" + dec2 + ",\"payload\":1.5E+3}"));
        decode(on, "decimal-empty-string", "Decimal from the empty string: an error", utf8("{\"schema\":" + dec2 + ",\"payload\":\"\"}"));
        decode(on, "decimal-invalid-base64", "Decimal from text that is not base64: an error", utf8("{\"schema\":" + dec2 + ",\"payload\":\"12.5\"}"));
        decode(on, "decimal-boolean", "Decimal from a boolean: an error", utf8("{\"schema\":" + dec2 + ",\"payload\":true}"));
        decode(on, "decimal-no-scale", "a Decimal schema without a scale parameter: an error",
            utf8("{\"schema\":{\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\"},\"payload\":\"AQ==\"}"));
        decode(on, "decimal-bad-scale", "a Decimal schema whose scale is not a number: an error",
            utf8("{\"schema\":{\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"parameters\":{\"scale\":\"two\"}},\"payload\":\"AQ==\"}"));
        String date = "{\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Date\",\"version\":1}";
        decode(on, "date", "Date from day 19782", utf8("{\"schema\":" + date + ",\"payload\":19782}"));
        decode(on, "date-fraction", "Date from 1.5: an error", utf8("{\"schema\":" + date + ",\"payload\":1.5}"));
        decode(on, "date-string", "Date from the string \"2024-02-29\": an error", utf8("{\"schema\":" + date + ",\"payload\":\"2024-02-29\"}"));
        decode(on, "date-long", "Date from a number beyond int32: an error", utf8("{\"schema\":" + date + ",\"payload\":3000000000}"));
        String time = "{\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Time\",\"version\":1}";
        decode(on, "time", "Time from 45296789", utf8("{\"schema\":" + time + ",\"payload\":45296789}"));
        decode(on, "time-negative", "Time from -1: an error", utf8("{\"schema\":" + time + ",\"payload\":-1}"));
        decode(on, "time-a-day", "Time from 86400000: an error", utf8("{\"schema\":" + time + ",\"payload\":86400000}"));
        String ts = "{\"type\":\"int64\",\"name\":\"org.apache.kafka.connect.data.Timestamp\",\"version\":1}";
        decode(on, "timestamp", "Timestamp from 1709210096789", utf8("{\"schema\":" + ts + ",\"payload\":1709210096789}"));
        decode(on, "timestamp-negative", "Timestamp from -1", utf8("{\"schema\":" + ts + ",\"payload\":-1}"));
        decode(on, "timestamp-fraction", "Timestamp from 1.0: an error", utf8("{\"schema\":" + ts + ",\"payload\":1.0}"));
        decode(on, "timestamp-string", "Timestamp from a string: an error", utf8("{\"schema\":" + ts + ",\"payload\":\"0\"}"));
        decode(on, "logical-name-on-other-type", "the Date name on a string schema",
            utf8("{\"schema\":{\"type\":\"string\",\"name\":\"org.apache.kafka.connect.data.Date\"},\"payload\":5}"));

        // Schemaless (schemas.enable=false): what JSON becomes without a schema.
        String[][] plain = {
            {"integer", "1", "a small integer: Long"},
            {"integer-big", "9223372036854775807", "Long.MAX_VALUE"},
            {"integer-beyond-long", "12345678901234567890", "an integer beyond a long"},
            {"decimal", "1.5", "a fraction: Double"},
            {"decimal-whole", "1.0", "1.0: Double"},
            {"exponent", "1e3", "1e3: Double"},
            {"huge", "1e400", "1e400: beyond a double"},
            {"negative-zero", "-0.0", "-0.0"},
            {"negative-zero-integer", "-0", "-0"},
            {"string", "\"text \\u00e9 \\ud83d\\ude00\"", "a string with escapes"},
            {"string-base64", "\"AQID\"", "a base64-looking string stays a string"},
            {"boolean", "false", "false"},
            {"null", "null", "the JSON null"},
            {"array", "[1,\"a\",null,[true],{\"k\":2.5}]", "a mixed array"},
            {"object", "{\"b\":1,\"a\":{\"c\":[]}}", "a nested object"},
            {"envelope-lookalike", "{\"schema\":{\"type\":\"int32\"},\"payload\":42}", "an envelope is just a map when schemas are off"},
            {"whitespace", " \n 7 \t", "whitespace around a value"},
            {"trailing", "7 8", "two values: the first is read"},
        };
        for (String[] p : plain) {
            decode(off, "plain-" + p[0], p[2], utf8(p[1]));
        }
        decode(off, "plain-empty-bytes", "empty bytes", new byte[0]);
        decode(off, "plain-kafka-null", "a Kafka null", null);
        decode(off, "plain-invalid", "not JSON", utf8("{"));
        decode(off, "plain-bare-word", "a bare word", utf8("hello"));
        // Jackson's default limits (StreamReadConstraints): nesting depth and number length.
        decode(off, "plain-deep-nesting", "arrays nested 1001 deep", utf8("[".repeat(1001) + "]".repeat(1001)));
        decode(off, "plain-long-number", "a number of 1001 digits", utf8("1".repeat(1001)));

        // schema.content: a fixed schema for every message; the bytes are the bare payload.
        String pointContent = "{\"type\":\"struct\",\"fields\":[{\"field\":\"x\",\"type\":\"int32\"},{\"field\":\"y\",\"type\":\"int32\",\"optional\":true}]}";
        Conv content = Conv.of("json-decode-schema-content", JSON, "value", "schema.content", pointContent);
        decode(content, "struct", "schema.content struct, bare payload", utf8("{\"x\":1,\"y\":2}"));
        decode(content, "envelope", "schema.content struct given an envelope: the envelope is taken as the payload",
            utf8("{\"schema\":" + pointSchema + ",\"payload\":{\"x\":1}}"));
        decode(content, "kafka-null", "schema.content, a Kafka null", null);
        decode(content, "json-null", "schema.content (required struct), the JSON null", utf8("null"));
        Conv contentOff = Conv.of("json-decode-schema-content-schemas-false", JSON, "value", "schema.content", pointContent, "schemas.enable", "false");
        decode(contentOff, "struct", "schema.content is ignored when schemas.enable=false", utf8("{\"x\":1,\"y\":2}"));
        Conv contentInt = Conv.of("json-decode-schema-content-int64", JSON, "value", "schema.content", "{\"type\":\"int64\",\"optional\":true}");
        decode(contentInt, "number", "schema.content int64", utf8("42"));
        Conv contentEmpty = Conv.of("json-decode-schema-content-empty", JSON, "value", "schema.content", "");
        decode(contentEmpty, "envelope", "an empty schema.content is no schema.content", utf8(int32Envelope));
        Conv contentBad = Conv.of("json-decode-schema-content-invalid", JSON, "value", "schema.content", "{\"type\":");
        decode(contentBad, "any", "schema.content that is not JSON: configure fails", utf8("1"));
        Conv contentUnknown = Conv.of("json-decode-schema-content-unknown-type", JSON, "value", "schema.content", "{\"type\":\"uuid\"}");
        decode(contentUnknown, "any", "schema.content with an unknown type: configure fails", utf8("1"));

        // The key and header roles decode the same way.
        decode(Conv.of("json-decode-key", JSON, "key"), "envelope-int32", "as a key converter", utf8(int32Envelope));
        decode(Conv.of("json-decode-header", JSON, "header"), "envelope-int32", "as a header converter", utf8(int32Envelope));
        decode(Conv.of("json-decode-header-schemas-false", JSON, "header", "schemas.enable", "false"), "plain", "as a header converter without schemas", utf8("[1,2]"));
    }

    // ------------------------------------------------------------------
    // SimpleHeaderConverter (the worker's default header.converter)
    // ------------------------------------------------------------------

    void simpleHeaderConverterCases(List<Sample> typed, List<Sample> schemaless) {
        // fromConnectHeader of every sample (Values.convertToString, which ignores the schema),
        // and toConnectHeader of the result (Values.parseString).
        Conv header = Conv.of("simple-header", SIMPLE_HEADER, "header");
        for (Sample x : typed) {
            encode(header, x);
        }
        for (Sample x : schemaless) {
            encode(header, x);
        }
        // Header text Kafka Connect must infer a schema and value from.
        Conv parse = Conv.of("simple-header-parse", SIMPLE_HEADER, "header");
        String[][] texts = {
            // numbers: the smallest integer type that holds the value; fractions become float32 when finite
            {"int8", "42"}, {"int8-negative", "-128"}, {"int16", "128"}, {"int32", "40000"}, {"int64", "3000000000"},
            {"long-max", "9223372036854775807"}, {"beyond-long", "9223372036854775808"},
            {"beyond-1e19", "12345678901234567890123"}, {"plus-sign", "+5"}, {"negative-zero", "-0"},
            {"whole-with-fraction", "1.0"}, {"whole-exponent", "1E2"}, {"fraction", "1.5"}, {"fraction-0-1", "0.1"},
            {"fraction-small", "0.5"}, {"fraction-many-digits", "3.141592653589793"}, {"fraction-negative", "-2.25"},
            {"exponent-negative", "1e-3"}, {"float-overflow", "1e39"}, {"double-overflow", "1e400"},
            {"fraction-large", "1e38"}, {"leading-zero", "007"}, {"hex", "0x10"}, {"trailing-letters", "42abc"},
            {"spaces-around", "  42  "}, {"number-comma", "1,2"}, {"number-colon", "12:34"},
            {"nan-word", "NaN"}, {"infinity-word", "Infinity"}, {"only-sign", "-"},
            // booleans and null
            {"true", "true"}, {"false", "false"}, {"true-capital", "True"}, {"true-spaces", " true "}, {"null", "null"},
            {"null-capital", "NULL"},
            // strings
            {"empty", ""}, {"spaces", "   "}, {"word", "hello"}, {"words", "hello world"}, {"quoted", "\"quoted\""},
            {"unicode", "\u00e9\ud83d\ude00"}, {"comma-text", "a,b"}, {"colon-text", "key:value"},
            {"brackets-text", "[not json"}, {"brace-text", "{oops"}, {"escaped-quote", "a\\\"b"},
            // dates and times (SimpleDateFormat, lenient, in the JVM's time zone)
            {"date", "2024-02-29"}, {"date-invalid-month", "2024-13-45"}, {"date-partial", "2024-01-1x"},
            {"time", "12:34:56.789Z"}, {"time-no-millis", "12:34:56Z"},
            {"timestamp", "2024-02-29T12:34:56.789Z"}, {"timestamp-no-z", "2024-02-29T12:34:56.789"},
            {"timestamp-offset", "2024-02-29T12:34:56.789+01:00"}, {"quoted-date", "\"2024-02-29\""},
            // arrays
            {"array-int", "[1,2,3]"}, {"array-spaces", "[ 1 , 2 ]"}, {"array-mixed-ints", "[1,300,70000]"},
            {"array-int-float", "[1,2.5]"}, {"array-float-double", "[1.5,1e300]"}, {"array-strings", "[\"a\",\"b\"]"},
            {"array-mixed", "[1,\"a\"]"}, {"array-bool-int", "[true,1]"}, {"array-empty", "[]"}, {"array-null", "[null]"},
            {"array-int-null", "[1,null]"}, {"array-nested", "[[1],[2,3]]"}, {"array-nested-mixed", "[[1],[\"a\"]]"},
            {"array-unterminated", "[1,2"}, {"array-empty-element", "[1,,2]"}, {"array-trailing-comma", "[1,]"},
            {"array-leading-comma", "[,1]"}, {"array-bare-words", "[a,b]"}, {"array-dates", "[2024-01-01,2024-01-02]"},
            {"array-quoted-dates", "[\"2024-01-01\"]"}, {"array-times", "[12:00:00.000Z]"}, {"array-then-text", "[1] x"},
            {"array-booleans", "[true,false]"}, {"array-escaped-quote", "[\"a\\\"b\"]"}, {"array-decimal", "[1e400]"},
            // maps
            {"map-int", "{\"a\":1,\"b\":2}"}, {"map-spaces", "{ \"a\" : 1 }"}, {"map-mixed-values", "{\"a\":1,\"b\":\"x\"}"},
            {"map-int-keys", "{1:\"a\",2:\"b\"}"}, {"map-null-value", "{\"a\":null}"}, {"map-null-values-mixed", "{\"a\":null,\"b\":1}"},
            {"map-empty", "{}"}, {"map-nested", "{\"a\":{\"b\":[1,2]}}"}, {"map-null-key", "{null:1}"},
            {"map-missing-colon", "{\"a\" 1}"}, {"map-unterminated", "{\"a\":1"}, {"map-bare-keys", "{a:1}"},
            {"map-trailing-comma", "{\"a\":1,}"}, {"map-duplicate-key", "{\"a\":1,\"a\":2}"}, {"map-widening", "{\"a\":1,\"b\":1.5}"},
            {"map-in-array", "[{\"a\":1},{\"a\":2}]"},
            // JSON-ish text that is not what Values expects
            {"json-object-spaces", "{\"a\": \"b c\"}"}, {"json-escape", "[\"\\u00e9\"]"}, {"json-newline", "[\"a\nb\"]"},
        };
        for (String[] t : texts) {
            decode(parse, t[0], "toConnectHeader of the text " + t[1], utf8(t[1]));
        }
        decode(parse, "invalid-utf8", "bytes that are not UTF-8", new byte[] {(byte) 0xff, (byte) 0xfe, 0x41});
        decode(parse, "kafka-null", "a null header value", null);
        decode(parse, "nul-char", "the NUL character", new byte[] {0});
    }

    // ------------------------------------------------------------------
    // StringConverter
    // ------------------------------------------------------------------

    void stringConverterCases(List<Sample> typed, List<Sample> schemaless) {
        // fromConnectData is value.toString() whatever the schema. byte[] values are left out: a
        // byte[]'s toString is its identity hash ([B@1b6d3586), different on every run.
        Conv value = Conv.of("string", STRING, "value");
        for (Sample x : typed) {
            if (!containsBytes(x.value())) {
                encode(value, x);
            }
        }
        for (Sample x : schemaless) {
            if (!containsBytes(x.value())) {
                encode(value, x);
            }
        }
        Sample unicode = new Sample("unicode", "a string with non-Latin-1 and non-BMP characters", Schema.STRING_SCHEMA, "a\u00e9\u65e5\ud83d\ude00");
        // converter.encoding, and the serializer's own keys, which the isKey flag chooses between.
        encode(Conv.of("string-key", STRING, "key"), unicode);
        encode(Conv.of("string-header", STRING, "header"), unicode);
        encode(Conv.of("string-utf16", STRING, "value", "converter.encoding", "UTF-16"), unicode);
        encode(Conv.of("string-latin1", STRING, "value", "converter.encoding", "ISO-8859-1"), unicode);
        encode(Conv.of("string-ascii", STRING, "value", "converter.encoding", "US-ASCII"), unicode);
        encode(Conv.of("string-unknown-encoding", STRING, "value", "converter.encoding", "NO-SUCH-CHARSET"), unicode);
        encode(Conv.of("string-key-serializer-encoding-as-key", STRING, "key", "key.serializer.encoding", "UTF-16BE"), unicode);
        encode(Conv.of("string-key-serializer-encoding-as-value", STRING, "value", "key.serializer.encoding", "UTF-16BE"), unicode);
        encode(Conv.of("string-value-serializer-encoding-as-value", STRING, "value", "value.serializer.encoding", "UTF-16LE"), unicode);
        encode(Conv.of("string-serializer-encoding-overridden", STRING, "value", "serializer.encoding", "UTF-16"), unicode);

        Conv decode = Conv.of("string-decode", STRING, "value");
        decode(decode, "utf8", "UTF-8 text", utf8("a\u00e9\ud83d\ude00"));
        decode(decode, "empty", "empty bytes", new byte[0]);
        decode(decode, "kafka-null", "a Kafka null", null);
        decode(decode, "invalid-utf8", "bytes that are not UTF-8 (replacement characters)", new byte[] {(byte) 0xc3, 0x28, (byte) 0xff, 0x41});
        decode(decode, "truncated-utf8", "a truncated 4-byte sequence", new byte[] {(byte) 0xf0, (byte) 0x9f, (byte) 0x98});
        decode(decode, "utf8-bom", "a UTF-8 BOM is kept as U+FEFF", new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf, 0x41});
        decode(decode, "nul", "the NUL byte", new byte[] {0});
        decode(Conv.of("string-decode-utf16", STRING, "value", "converter.encoding", "UTF-16"), "utf16-bom", "UTF-16 with a little-endian BOM",
            new byte[] {(byte) 0xff, (byte) 0xfe, 0x41, 0x00});
        decode(Conv.of("string-decode-latin1", STRING, "value", "converter.encoding", "ISO-8859-1"), "latin1", "ISO-8859-1 bytes", new byte[] {(byte) 0xe9, (byte) 0xff});
        decode(Conv.of("string-decode-key", STRING, "key", "key.deserializer.encoding", "UTF-16BE"), "key-deserializer-encoding", "key.deserializer.encoding as a key converter",
            new byte[] {0x00, 0x41});
    }

    // ------------------------------------------------------------------
    // ByteArrayConverter
    // ------------------------------------------------------------------

    void byteArrayConverterCases() {
        Conv value = Conv.of("byte-array", BYTE_ARRAY, "value");
        Sample[] samples = {
            new Sample("bytes", "bytes schema, bytes", Schema.BYTES_SCHEMA, new byte[] {0, 1, (byte) 0xff}),
            new Sample("bytes-empty", "bytes schema, empty", Schema.BYTES_SCHEMA, new byte[0]),
            new Sample("optional-null", "optional bytes schema, null", Schema.OPTIONAL_BYTES_SCHEMA, null),
            new Sample("required-null", "required bytes schema, null (not checked)", Schema.BYTES_SCHEMA, null),
            new Sample("schemaless", "no schema, bytes", null, new byte[] {0x41}),
            new Sample("schemaless-null", "no schema, null", null, null),
            new Sample("decimal-schema", "a Decimal schema (type bytes) given bytes", Decimal.schema(2), new byte[] {1}),
            new Sample("named-bytes", "a named bytes schema", SchemaBuilder.bytes().name("n").build(), new byte[] {2}),
            new Sample("string-schema", "a string schema: an error", Schema.STRING_SCHEMA, "x"),
            new Sample("string-schema-bytes", "a string schema given bytes: an error", Schema.STRING_SCHEMA, new byte[] {1}),
            new Sample("schemaless-string", "no schema, a String: an error", null, "x"),
            new Sample("bytes-schema-integer", "bytes schema, an Integer: an error", Schema.BYTES_SCHEMA, 1),
            new Sample("decimal-value", "a Decimal schema given a BigDecimal: an error", Decimal.schema(2), new BigDecimal("1.00")),
        };
        for (Sample x : samples) {
            encode(value, x);
        }
        encode(Conv.of("byte-array-key", BYTE_ARRAY, "key"), samples[0]);
        encode(Conv.of("byte-array-header", BYTE_ARRAY, "header"), samples[0]);
        Conv decode = Conv.of("byte-array-decode", BYTE_ARRAY, "value");
        decode(decode, "bytes", "any bytes", new byte[] {(byte) 0xde, (byte) 0xad});
        decode(decode, "empty", "empty bytes", new byte[0]);
        decode(decode, "kafka-null", "a Kafka null", null);
    }

    // ------------------------------------------------------------------
    // The numeric converters and BooleanConverter
    // ------------------------------------------------------------------

    void numberConverterCases() {
        numberCases("short", SHORT, Schema.INT16_SCHEMA, 2, new Object[][] {
            {"zero", (short) 0}, {"one", (short) 1}, {"minus-one", (short) -1}, {"min", Short.MIN_VALUE}, {"max", Short.MAX_VALUE},
            {"0x0102", (short) 0x0102}}, 1);
        numberCases("integer", INTEGER, Schema.INT32_SCHEMA, 4, new Object[][] {
            {"zero", 0}, {"one", 1}, {"minus-one", -1}, {"min", Integer.MIN_VALUE}, {"max", Integer.MAX_VALUE},
            {"0x01020304", 0x01020304}}, 1L);
        numberCases("long", LONG, Schema.INT64_SCHEMA, 8, new Object[][] {
            {"zero", 0L}, {"one", 1L}, {"minus-one", -1L}, {"min", Long.MIN_VALUE}, {"max", Long.MAX_VALUE},
            {"0x0102030405060708", 0x0102030405060708L}}, 1);
        numberCases("float", FLOAT, Schema.FLOAT32_SCHEMA, 4, new Object[][] {
            {"zero", 0f}, {"one", 1f}, {"negative-zero", -0f}, {"1-5", 1.5f}, {"0-1", 0.1f}, {"nan", Float.NaN},
            {"infinity", Float.POSITIVE_INFINITY}, {"negative-infinity", Float.NEGATIVE_INFINITY},
            {"min-value", Float.MIN_VALUE}, {"max-value", Float.MAX_VALUE}}, 1.5);
        numberCases("double", DOUBLE, Schema.FLOAT64_SCHEMA, 8, new Object[][] {
            {"zero", 0d}, {"one", 1d}, {"negative-zero", -0d}, {"1-5", 1.5}, {"0-1", 0.1}, {"nan", Double.NaN},
            {"infinity", Double.POSITIVE_INFINITY}, {"negative-infinity", Double.NEGATIVE_INFINITY},
            {"min-value", Double.MIN_VALUE}, {"max-value", Double.MAX_VALUE}}, 1.5f);
        // NaN payloads survive the bytes -> float decoding.
        decode(Conv.of("float-decode", FLOAT, "value"), "nan-payload", "a NaN with a payload (7fc00001)", HexFormat.of().parseHex("7fc00001"));
        decode(Conv.of("double-decode", DOUBLE, "value"), "nan-payload", "a NaN with a payload (7ff8000000000001)", HexFormat.of().parseHex("7ff8000000000001"));
    }

    /** One numeric converter: values (as value, key and header), schemas it ignores, wrong Java types, wrong sizes. */
    void numberCases(String label, String cls, Schema schema, int width, Object[][] values, Object wrongType) {
        Conv value = Conv.of(label, cls, "value");
        for (Object[] v : values) {
            encode(value, new Sample(String.valueOf(v[0]), schema.type().getName() + " " + v[0], schema, v[1]));
        }
        Object one = values[1][1]; // each list has "one" second
        encode(value, new Sample("optional-null", "optional schema, null", SchemaBuilder.type(schema.type()).optional().build(), null));
        encode(value, new Sample("schemaless", "no schema: the schema is not needed", null, one));
        encode(value, new Sample("schemaless-null", "no schema, null", null, null));
        encode(value, new Sample("other-schema", "a string schema with a matching Java value: the schema is not checked", Schema.STRING_SCHEMA, one));
        encode(value, new Sample("wrong-java-type", "a " + wrongType.getClass().getSimpleName() + ": an error", schema, wrongType));
        encode(value, new Sample("string-value", "a String: an error", schema, "1"));
        encode(Conv.of(label + "-key", cls, "key"), new Sample("one", "as a key converter", schema, one));
        encode(Conv.of(label + "-header", cls, "header"), new Sample("one", "as a header converter", schema, one));
        Conv decode = Conv.of(label + "-decode", cls, "value");
        decode(decode, "short", "one byte too few: an error", new byte[width - 1]);
        decode(decode, "long", "one byte too many: an error", new byte[width + 1]);
        decode(decode, "empty", "empty bytes: an error", new byte[0]);
        decode(decode, "kafka-null", "a Kafka null", null);
        decode(Conv.of(label + "-decode-header", cls, "header"), "kafka-null", "a null header", null);
    }

    void booleanConverterCases() {
        Conv value = Conv.of("boolean", BOOLEAN, "value");
        Sample[] samples = {
            new Sample("true", "true", Schema.BOOLEAN_SCHEMA, true),
            new Sample("false", "false", Schema.BOOLEAN_SCHEMA, false),
            new Sample("optional-null", "optional boolean, null", Schema.OPTIONAL_BOOLEAN_SCHEMA, null),
            new Sample("schemaless", "no schema, true", null, true),
            new Sample("schemaless-null", "no schema, null", null, null),
            new Sample("int8-schema", "an int8 schema: an error", Schema.INT8_SCHEMA, (byte) 1),
            new Sample("wrong-java-type", "boolean schema given an Integer: an error", Schema.BOOLEAN_SCHEMA, 1),
            new Sample("string-value", "boolean schema given the String \"true\": an error", Schema.BOOLEAN_SCHEMA, "true"),
        };
        for (Sample x : samples) {
            encode(value, x);
        }
        encode(Conv.of("boolean-key", BOOLEAN, "key"), samples[0]);
        encode(Conv.of("boolean-header", BOOLEAN, "header"), samples[0]);
        Conv decode = Conv.of("boolean-decode", BOOLEAN, "value");
        decode(decode, "zero", "00", new byte[] {0});
        decode(decode, "one", "01", new byte[] {1});
        decode(decode, "two", "02: an error", new byte[] {2});
        decode(decode, "ff", "ff: an error", new byte[] {(byte) 0xff});
        decode(decode, "empty", "empty bytes: an error", new byte[0]);
        decode(decode, "two-bytes", "two bytes: an error", new byte[] {1, 1});
        decode(decode, "kafka-null", "a Kafka null", null);
    }

    // ------------------------------------------------------------------
    // Running a case
    // ------------------------------------------------------------------

    static Object configure(Conv c) {
        Object instance;
        try {
            instance = Class.forName(c.className()).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot instantiate " + c.className(), e);
        }
        Map<String, Object> config = new HashMap<>(c.config());
        switch (c.role()) {
            case "key" -> ((Converter) instance).configure(config, true);
            case "value" -> ((Converter) instance).configure(config, false);
            case "header" -> {
                config.put(ConverterConfig.TYPE_CONFIG, "header");
                ((HeaderConverter) instance).configure(config);
            }
            default -> throw new IllegalArgumentException(c.role());
        }
        return instance;
    }

    ObjectNode newCase(Conv c, String id, String description, String operation) {
        String fullId = c.label() + "/" + id;
        if (!ids.add(fullId)) {
            throw new IllegalStateException("duplicate case id " + fullId);
        }
        perConverter.merge(c.className().substring(c.className().lastIndexOf('.') + 1), 1, Integer::sum);
        ObjectNode n = cases.addObject();
        n.put("id", fullId);
        n.put("description", description);
        ObjectNode conv = n.putObject("converter");
        conv.put("class", c.className());
        conv.put("role", c.role());
        ObjectNode config = conv.putObject("config");
        c.config().forEach(config::put);
        n.put("operation", operation);
        return n;
    }

    /** fromConnectData (fromConnectHeader), then toConnectData (toConnectHeader) of the bytes. */
    void encode(Conv c, Sample x) {
        ObjectNode n = newCase(c, x.id(), x.description(), "encode");
        ObjectNode input = n.putObject("input");
        input.set("schema", NeutralJson.schema(x.schema()));
        input.set("value", NeutralJson.value(x.value(), x.schema()));
        if (javaDependent(x.value()) || javaDependent(x.schema())) {
            n.put("java_dependent", true);
        }
        Object converter;
        try {
            converter = configure(c);
        } catch (RuntimeException e) {
            n.set("error", NeutralJson.error("configure", e));
            return;
        }
        boolean header = c.role().equals("header");
        byte[] bytes;
        try {
            bytes = header
                ? ((HeaderConverter) converter).fromConnectHeader(TOPIC, HEADER_KEY, x.schema(), x.value())
                : ((Converter) converter).fromConnectData(TOPIC, x.schema(), x.value());
        } catch (RuntimeException e) {
            n.set("error", NeutralJson.error(header ? "fromConnectHeader" : "fromConnectData", e));
            return;
        }
        n.set("serialized", NeutralJson.bytes(bytes));
        n.set("round_trip", toConnect(converter, header, bytes));
    }

    /** toConnectData (toConnectHeader) of given bytes. */
    void decode(Conv c, String id, String description, byte[] input) {
        ObjectNode n = newCase(c, id, description, "decode");
        n.set("input", NeutralJson.bytes(input));
        Object converter;
        try {
            converter = configure(c);
        } catch (RuntimeException e) {
            n.set("error", NeutralJson.error("configure", e));
            return;
        }
        n.set("result", toConnect(converter, c.role().equals("header"), input));
    }

    static JsonNode toConnect(Object converter, boolean header, byte[] bytes) {
        SchemaAndValue sv;
        try {
            sv = header
                ? ((HeaderConverter) converter).toConnectHeader(TOPIC, HEADER_KEY, bytes)
                : ((Converter) converter).toConnectData(TOPIC, bytes);
        } catch (RuntimeException e) {
            ObjectNode n = NODES.objectNode();
            n.set("error", NeutralJson.error(header ? "toConnectHeader" : "toConnectData", e));
            return n;
        }
        if (sv == null) {
            return NODES.nullNode();
        }
        ObjectNode n = NODES.objectNode();
        n.set("schema", NeutralJson.schema(sv.schema()));
        n.set("value", NeutralJson.value(sv.value(), sv.schema()));
        return n;
    }

    // ------------------------------------------------------------------
    // Helpers
    // ------------------------------------------------------------------

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] p : parts) {
            length += p.length;
        }
        byte[] out = new byte[length];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    /** A LinkedHashMap from alternating keys and values (nulls allowed). */
    static Map<Object, Object> linked(Object... keyValues) {
        Map<Object, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    /** A string schema with an empty (not absent) parameters map. */
    static Schema emptyParameters(SchemaBuilder b) {
        b.parameters(Map.of());
        return b.build();
    }

    static Sample find(List<Sample> samples, String id) {
        for (Sample x : samples) {
            if (x.id().equals(id)) {
                return x;
            }
        }
        throw new IllegalArgumentException("no sample " + id);
    }

    /** Does the schema, or any schema inside it, satisfy p? */
    static boolean mentions(Schema s, Predicate<Schema> p) {
        if (s == null) {
            return false;
        }
        if (p.test(s)) {
            return true;
        }
        return switch (s.type()) {
            case ARRAY -> mentions(s.valueSchema(), p);
            case MAP -> mentions(s.keySchema(), p) || mentions(s.valueSchema(), p);
            case STRUCT -> s.fields().stream().anyMatch(f -> mentions(f.schema(), p));
            default -> false;
        };
    }

    /**
     * Does the value (or a default in the schema) hold a float or double whose text from this JVM's
     * Float.toString / Double.toString is not the shortest decimal that reads back to it? Java 17
     * prints such numbers with extra digits (JDK-4511638); Java 19+ prints the shortest, so Kafka
     * Connect's bytes for them depend on the JVM it runs on.
     */
    static boolean javaDependent(Object v) {
        if (v instanceof Float f) {
            return Float.isFinite(f) && !Float.toString(f).equals(FloatToDecimal.toString(f));
        }
        if (v instanceof Double d) {
            return Double.isFinite(d) && !Double.toString(d).equals(DoubleToDecimal.toString(d));
        }
        if (v instanceof Collection<?> c) {
            return c.stream().anyMatch(KafkaConnectConverters::javaDependent);
        }
        if (v instanceof Map<?, ?> m) {
            return m.keySet().stream().anyMatch(KafkaConnectConverters::javaDependent)
                || m.values().stream().anyMatch(KafkaConnectConverters::javaDependent);
        }
        if (v instanceof Struct st) {
            return st.schema().fields().stream().anyMatch(f -> javaDependent(st.getWithoutDefault(f.name())));
        }
        if (v instanceof Schema sc) {
            return mentions(sc, x -> !(x.defaultValue() instanceof Schema) && javaDependent(x.defaultValue()));
        }
        return false;
    }

    static boolean containsBytes(Object v) {
        if (v instanceof byte[] || v instanceof ByteBuffer) {
            return true;
        }
        if (v instanceof Collection<?> c) {
            return c.stream().anyMatch(KafkaConnectConverters::containsBytes);
        }
        if (v instanceof Map<?, ?> m) {
            return m.keySet().stream().anyMatch(KafkaConnectConverters::containsBytes)
                || m.values().stream().anyMatch(KafkaConnectConverters::containsBytes);
        }
        if (v instanceof Struct st) {
            return st.schema().fields().stream().anyMatch(f -> containsBytes(st.getWithoutDefault(f.name())));
        }
        return false;
    }
}
