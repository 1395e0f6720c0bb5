/*
 * The neutral JSON form of Kafka Connect data that the golden files under
 * tests/golden/kafka-connect/ share: SCHEMA (a Connect Schema), VALUE (a Java
 * object as Connect holds it, tagged by its Java class), BYTES and ERROR (an
 * exception and its cause chain), and the pretty printer the files are
 * written with. Used by KafkaConnectConverters.java and
 * KafkaConnectTransforms.java, compiled together with them by
 * scripts/golden/java.sh (single-file source launch cannot see a second
 * file). FORMAT_BYTES and FORMAT_SCHEMA_VALUE are the lines of the files'
 * "format" field that document these shapes.
 */

import com.fasterxml.jackson.core.io.schubfach.DoubleToDecimal;
import com.fasterxml.jackson.core.io.schubfach.FloatToDecimal;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.stream.Stream;

public final class NeutralJson {
    private NeutralJson() {}

    public static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** The "format" lines for BYTES. */
    public static final String[] FORMAT_BYTES = {
        "BYTES: null (a Java null byte[]: a Kafka null, e.g. a tombstone) or {hex, utf8}; utf8 is present only when the",
        "  bytes are valid UTF-8 (strict), as a readable copy of the same bytes.",
    };

    /** The "format" lines for SCHEMA and VALUE. */
    public static final String[] FORMAT_SCHEMA_VALUE = {
        "SCHEMA: null (no schema) or {type, optional, name?, version?, doc?, parameters?, default?, items? | keys?, values? |",
        "  fields?}: the shape of JsonConverter's envelope schemas, but with Connect's own type names (Schema.Type:",
        "  int8 int16 int32 int64 float32 float64 boolean string bytes array map struct). optional is always present;",
        "  name/version/doc/parameters/default only when set (parameters in the schema's order; default is a VALUE).",
        "  array: items (SCHEMA, null if the schema has no element schema, as Values makes for [] and [null]);",
        "  map: keys, values (SCHEMA or null); struct: fields, a list of {field: NAME, ...SCHEMA}.",
        "VALUE: the Java object, tagged by its Java class (not by the schema), so that int vs float, bytes, decimals and",
        "  dates stay unambiguous:",
        "  null                                  Java null",
        "  {boolean: true|false}                 Boolean",
        "  {int8|int16|int32|int64: N}           Byte, Short, Integer, Long (JSON integer, exact)",
        "  {float32|float64: TEXT, bits: HEX}    Float, Double; bits is the IEEE 754 bit pattern (floatToRawIntBits /",
        "                                        doubleToRawLongBits, 8 or 16 hex digits) and is what counts; TEXT is the",
        "                                        shortest decimal that reads back to the same value, or NaN, Infinity,",
        "                                        -Infinity (it is not how Kafka Connect prints the number: see serialized)",
        "  {string: S}                           String",
        "  {bytes: BASE64}                       byte[] (standard alphabet, padded)",
        "  {decimal: TEXT, unscaled: N, scale: N}  BigDecimal: TEXT is BigDecimal.toString(), unscaled a decimal string",
        "  {datetime: MILLIS, iso: TEXT}         java.util.Date (Connect's Date, Time and Timestamp logical types):",
        "                                        milliseconds since the epoch, and the instant in ISO-8601 UTC",
        "  {array: [VALUE...]}                   List",
        "  {map: [[KEY, VALUE]...]}              Map: entries as pairs, so that keys of any type can be written; a",
        "                                        HashMap's entries (no meaningful order) sorted by the key's JSON text",
        "  {struct: {NAME: VALUE...}}            Struct: its fields in schema order (the stored value: a field left",
        "                                        null shows null even when its schema has a default); a struct whose",
        "                                        schema is not the one expected at its position also has schema: SCHEMA",
        "  {java: CLASS, string: TEXT}           any other class (not expected)",
    };

    /** The lines of several FORMAT parts, in order. */
    public static String[] lines(String[]... parts) {
        return Arrays.stream(parts).flatMap(Stream::of).toArray(String[]::new);
    }

    /** Writes root to file, pretty-printed as all the golden files are (the caller adds the final newline). */
    public static void write(File file, JsonNode root) throws IOException {
        DefaultPrettyPrinter pretty = new DefaultPrettyPrinter();
        pretty.indentArraysWith(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE);
        new ObjectMapper().writer(pretty).writeValue(file, root);
    }

    public static ObjectNode error(String stage, Throwable t) {
        ObjectNode n = NODES.objectNode();
        n.put("stage", stage);
        describe(n, t, 0);
        return n;
    }

    public static void describe(ObjectNode n, Throwable t, int depth) {
        n.put("class", t.getClass().getName());
        n.put("message", t.getMessage());
        if (t.getCause() != null && t.getCause() != t && depth < 8) {
            describe(n.putObject("cause"), t.getCause(), depth + 1);
        }
    }

    public static JsonNode bytes(byte[] b) {
        if (b == null) {
            return NODES.nullNode();
        }
        ObjectNode n = NODES.objectNode();
        n.put("hex", HexFormat.of().formatHex(b));
        try {
            CharBuffer text = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(b));
            n.put("utf8", text.toString());
        } catch (CharacterCodingException e) {
            // not UTF-8: hex only
        }
        return n;
    }

    public static JsonNode schema(Schema s) {
        if (s == null) {
            return NODES.nullNode();
        }
        ObjectNode n = NODES.objectNode();
        n.put("type", s.type().getName());
        n.put("optional", s.isOptional());
        if (s.name() != null) {
            n.put("name", s.name());
        }
        if (s.version() != null) {
            n.put("version", s.version());
        }
        if (s.doc() != null) {
            n.put("doc", s.doc());
        }
        if (s.parameters() != null) {
            ObjectNode p = n.putObject("parameters");
            s.parameters().forEach(p::put);
        }
        if (s.defaultValue() != null) {
            n.set("default", value(s.defaultValue(), s));
        }
        switch (s.type()) {
            case ARRAY -> n.set("items", schema(s.valueSchema()));
            case MAP -> {
                n.set("keys", schema(s.keySchema()));
                n.set("values", schema(s.valueSchema()));
            }
            case STRUCT -> {
                ArrayNode fields = n.putArray("fields");
                for (Field f : s.fields()) {
                    ObjectNode fn = fields.addObject();
                    fn.put("field", f.name());
                    fn.setAll((ObjectNode) schema(f.schema()));
                }
            }
            default -> { }
        }
        return n;
    }

    /** The value, tagged by its Java class; expected is the schema at its position (or null). */
    public static JsonNode value(Object v, Schema expected) {
        if (v == null) {
            return NODES.nullNode();
        }
        ObjectNode n = NODES.objectNode();
        if (v instanceof Boolean b) {
            n.put("boolean", b);
        } else if (v instanceof Byte b) {
            n.put("int8", b);
        } else if (v instanceof Short sh) {
            n.put("int16", sh);
        } else if (v instanceof Integer i) {
            n.put("int32", i);
        } else if (v instanceof Long l) {
            n.put("int64", l);
        } else if (v instanceof Float f) {
            n.put("float32", Float.isFinite(f) ? FloatToDecimal.toString(f) : Float.toString(f));
            n.put("bits", String.format("%08x", Float.floatToRawIntBits(f)));
        } else if (v instanceof Double d) {
            n.put("float64", Double.isFinite(d) ? DoubleToDecimal.toString(d) : Double.toString(d));
            n.put("bits", String.format("%016x", Double.doubleToRawLongBits(d)));
        } else if (v instanceof String str) {
            n.put("string", str);
        } else if (v instanceof byte[] b) {
            n.put("bytes", Base64.getEncoder().encodeToString(b));
        } else if (v instanceof BigDecimal d) {
            n.put("decimal", d.toString());
            n.put("unscaled", d.unscaledValue().toString());
            n.put("scale", d.scale());
        } else if (v instanceof java.util.Date d) {
            n.put("datetime", d.getTime());
            n.put("iso", Instant.ofEpochMilli(d.getTime()).toString());
        } else if (v instanceof List<?> list) {
            Schema elem = expected != null && expected.type() == Schema.Type.ARRAY ? expected.valueSchema() : null;
            ArrayNode a = n.putArray("array");
            for (Object e : list) {
                a.add(value(e, elem));
            }
        } else if (v instanceof Map<?, ?> map) {
            boolean isMap = expected != null && expected.type() == Schema.Type.MAP;
            Schema ks = isMap ? expected.keySchema() : null;
            Schema vs = isMap ? expected.valueSchema() : null;
            List<ArrayNode> entries = new ArrayList<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                ArrayNode pair = NODES.arrayNode();
                pair.add(value(e.getKey(), ks));
                pair.add(value(e.getValue(), vs));
                entries.add(pair);
            }
            if (!(map instanceof LinkedHashMap) && !(map instanceof SortedMap)) {
                // A HashMap's order means nothing: sort by the key's JSON text.
                entries.sort((a, b) -> a.get(0).toString().compareTo(b.get(0).toString()));
            }
            ArrayNode a = n.putArray("map");
            entries.forEach(a::add);
        } else if (v instanceof Struct st) {
            ObjectNode fields = n.putObject("struct");
            for (Field f : st.schema().fields()) {
                fields.set(f.name(), value(st.getWithoutDefault(f.name()), f.schema()));
            }
            if (!st.schema().equals(expected)) {
                n.set("schema", schema(st.schema()));
            }
        } else {
            n.put("java", v.getClass().getName());
            n.put("string", v.toString());
        }
        return n;
    }
}
