// Kafka Connect's side of the converter benchmark (bench/src/bin/converters.rs,
// docs/BENCHMARKS.md "Converters (issue 22)"): a source connector emitting the
// records of Copycat's datagen (connectors/datagen/src/lib.rs) with one stream,
// so that Kafka Connect's converters convert the same records Copycat's do.
//
//   record.mode=typed  key: STRING "stream-0:<seq>"; value: the Struct
//                      copycat.datagen.Record (version 1), every field the
//                      function of (0, seq) datagen's `record` is
//   record.mode=bytes  key: the same text as BYTES; value: value.size bytes,
//                      the key then '.' padding (datagen's bytes mode)
//
// Source partition {"stream": "stream-0"}, offset {"seq": <seq>}, no Kafka
// partition or timestamp, as datagen. Settings: topic, count, record.mode,
// value.size, batch.size (records per poll). Compiled by
// `scripts/kafka-connect.sh datagen-plugin` against connect-api 4.4.0.
package dev.copycat.bench;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

public class DatagenSource extends SourceConnector {
    /** copycat.datagen.Record, as datagen's to_connect! declares it. */
    public static final Schema RECORD = SchemaBuilder.struct()
            .name("copycat.datagen.Record")
            .version(1)
            .doc("A record of the datagen connector")
            .field("stream", Schema.INT32_SCHEMA)
            .field("seq", Schema.INT64_SCHEMA)
            .field("id", Schema.STRING_SCHEMA)
            .field("amount", Decimal.schema(2))
            .field("ts", Timestamp.SCHEMA)
            .field("day", Date.SCHEMA)
            .field("even", Schema.BOOLEAN_SCHEMA)
            .field("score", Schema.FLOAT64_SCHEMA)
            .field("note", Schema.OPTIONAL_STRING_SCHEMA)
            .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .build();

    private static final ConfigDef CONFIG = new ConfigDef()
            .define("topic", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "Kafka topic to write to")
            .define("count", ConfigDef.Type.LONG, 0L, ConfigDef.Importance.HIGH, "Records; 0: no end")
            .define("record.mode", ConfigDef.Type.STRING, "typed", ConfigDef.Importance.HIGH, "typed or bytes")
            .define("value.size", ConfigDef.Type.INT, 100, ConfigDef.Importance.LOW, "Bytes per value (bytes mode)")
            .define("batch.size", ConfigDef.Type.INT, 1000, ConfigDef.Importance.LOW, "Most records per poll");

    private Map<String, String> props;

    @Override
    public void start(Map<String, String> props) {
        this.props = props;
    }

    @Override
    public Class<? extends Task> taskClass() {
        return DatagenTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return Collections.singletonList(props);
    }

    @Override
    public void stop() {}

    @Override
    public ConfigDef config() {
        return CONFIG;
    }

    @Override
    public String version() {
        return "1";
    }

    /** The task: stream 0, from seq 0 or after the committed offset. */
    public static class DatagenTask extends SourceTask {
        private static final Map<String, Object> PARTITION = Collections.singletonMap("stream", "stream-0");
        private static final long TS0 = 1_700_000_000_000L;

        private String topic;
        private long count;
        private boolean typed;
        private int valueSize;
        private int batchSize;
        private long next;

        @Override
        public String version() {
            return "1";
        }

        @Override
        public void start(Map<String, String> props) {
            Map<String, Object> c = CONFIG.parse(props);
            topic = (String) c.get("topic");
            count = (Long) c.get("count");
            typed = "typed".equalsIgnoreCase((String) c.get("record.mode"));
            valueSize = (Integer) c.get("value.size");
            batchSize = (Integer) c.get("batch.size");
            Map<String, Object> last = context.offsetStorageReader().offset(PARTITION);
            next = last == null ? 0 : ((Number) last.get("seq")).longValue() + 1;
        }

        /** datagen's `record(0, seq)`. */
        static Struct record(long seq) {
            int stream = 0;
            long amount = Math.floorMod(seq * 7919 + stream * 31L, 200_000L) - 100_000L;
            List<String> tags = new ArrayList<>();
            for (long k = 0; k < seq % 4; k++) {
                tags.add("t" + k);
            }
            return new Struct(RECORD)
                    .put("stream", stream)
                    .put("seq", seq)
                    .put("id", "stream-" + stream + ":" + seq)
                    .put("amount", new BigDecimal(BigInteger.valueOf(amount), 2))
                    .put("ts", new java.util.Date(TS0 + seq * 1000 + stream))
                    .put("day", new java.util.Date((19_000L + seq % 3650) * 86_400_000L))
                    .put("even", seq % 2 == 0)
                    .put("score", seq / 8.0 + stream)
                    .put("note", seq % 3 != 0 ? "note " + seq : null)
                    .put("tags", tags);
        }

        @Override
        public List<SourceRecord> poll() throws InterruptedException {
            long end = count > 0 ? Math.min(count, next + batchSize) : next + batchSize;
            if (next >= end) {
                Thread.sleep(100);
                return null;
            }
            List<SourceRecord> out = new ArrayList<>((int) (end - next));
            for (; next < end; next++) {
                String key = "stream-0:" + next;
                Map<String, Object> offset = Collections.singletonMap("seq", next);
                if (typed) {
                    out.add(new SourceRecord(PARTITION, offset, topic, null,
                            Schema.STRING_SCHEMA, key, RECORD, record(next)));
                } else {
                    byte[] k = key.getBytes(StandardCharsets.UTF_8);
                    byte[] v = new byte[valueSize];
                    Arrays.fill(v, (byte) '.');
                    System.arraycopy(k, 0, v, 0, Math.min(k.length, valueSize));
                    out.add(new SourceRecord(PARTITION, offset, topic, null,
                            Schema.BYTES_SCHEMA, k, Schema.BYTES_SCHEMA, v));
                }
            }
            return out;
        }

        @Override
        public void stop() {}
    }
}
