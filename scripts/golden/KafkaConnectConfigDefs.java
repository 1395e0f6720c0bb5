/*
 * The golden outputs of tests/golden/kafka-connect/config-defs.json: what
 * Kafka Connect 4.4's REST API answers for the connector plugins
 * FileStreamSource and FileStreamSink on
 *
 *   GET /connector-plugins?connectorsOnly=false
 *   GET /connector-plugins/{plugin}/config
 *   PUT /connector-plugins/{plugin}/config/validate
 *
 * Copycat's answers must list the same framework keys (names, types,
 * defaults, groups, order, importance, documentation) for what it
 * implements. Run by scripts/golden/kafka-connect-config-defs.sh, which
 * compiles it with NeutralJson.java through scripts/golden/java.sh, Kafka
 * Connect's jars on the classpath.
 *
 * Nothing here decides an output: every answer is the return value (or the
 * exception) of Kafka Connect's own REST resource
 * (ConnectorPluginsResource) over a StandaloneHerder, as ConnectStandalone
 * builds them, serialized with Jackson as the REST server does. The worker
 * never starts (no broker is needed): the plugin listing, config
 * definitions and validation only read the plugins and the worker config.
 * The worker config is a standalone one with the JsonConverter as its key
 * and value converter and the "All" client override policy (Kafka Connect's
 * defaults); its plugins are those on the classpath (no plugin.path).
 */

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.apache.kafka.connect.connector.policy.AllConnectorClientConfigOverridePolicy;
import org.apache.kafka.connect.runtime.Worker;
import org.apache.kafka.connect.runtime.isolation.Plugins;
import org.apache.kafka.connect.runtime.rest.RestRequestTimeout;
import org.apache.kafka.connect.runtime.rest.resources.ConnectorPluginsResource;
import org.apache.kafka.connect.runtime.standalone.StandaloneConfig;
import org.apache.kafka.connect.runtime.standalone.StandaloneHerder;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.FileOffsetBackingStore;

import java.io.File;
import java.util.LinkedHashMap;
import java.util.Map;

public class KafkaConnectConfigDefs {
    static final String[] FORMAT = {
        "plugins: GET /connector-plugins?connectorsOnly=false: [{class, type, version}], Kafka Connect's own order.",
        "config: PLUGIN -> GET /connector-plugins/PLUGIN/config: [ConfigKeyInfo], ConfigKeyInfo being {name, type,",
        "  required, default_value, importance, documentation, group, order_in_group, width, display_name, dependents}.",
        "  A PLUGIN that Kafka Connect refuses has {error: EXCEPTION_CLASS, message} instead.",
        "validate: [{plugin, config, answer}]: PUT /connector-plugins/PLUGIN/config/validate with CONFIG; answer is the",
        "  ConfigInfos {name, error_count, groups, configs: [{definition: ConfigKeyInfo, value: {name, value,",
        "  recommended_values, errors, visible}}]}, or {error: EXCEPTION_CLASS, message}.",
        "The worker is a StandaloneHerder with key.converter and value.converter JsonConverter, never started.",
    };

    static final ObjectMapper MAPPER = new ObjectMapper();

    final ConnectorPluginsResource resource;

    KafkaConnectConfigDefs() {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("bootstrap.servers", "127.0.0.1:9092");
        props.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        props.put("offset.storage.file.filename", "/dev/null");
        props.put("connector.client.config.override.policy", "All");
        Plugins plugins = new Plugins(props);
        StandaloneConfig config = new StandaloneConfig(props);
        AllConnectorClientConfigOverridePolicy policy = new AllConnectorClientConfigOverridePolicy();
        Worker worker = new Worker("golden", Time.SYSTEM, plugins, config, new FileOffsetBackingStore(plugins.newInternalConverter(true, JsonConverter.class.getName(), Map.of("schemas.enable", "false"))), policy);
        StandaloneHerder herder = new StandaloneHerder(worker, "golden-cluster", policy);
        resource = new ConnectorPluginsResource(herder, RestRequestTimeout.constant(90_000, 10_000));
    }

    static JsonNode error(Throwable t) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("error", t.getClass().getName());
        n.put("message", t.getMessage());
        return n;
    }

    JsonNode config(String plugin) {
        try {
            return MAPPER.valueToTree(resource.getConnectorConfigDef(plugin, null));
        } catch (Exception e) {
            return error(e);
        }
    }

    ObjectNode validate(String plugin, String... kv) {
        Map<String, String> config = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            config.put(kv[i], kv[i + 1]);
        }
        ObjectNode c = MAPPER.createObjectNode();
        c.put("plugin", plugin);
        c.set("config", MAPPER.valueToTree(config));
        try {
            c.set("answer", MAPPER.valueToTree(resource.validateConfigs(plugin, config)));
        } catch (Throwable t) {
            c.set("answer", error(t));
        }
        return c;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: KafkaConnectConfigDefs OUT.json");
            System.exit(2);
        }
        KafkaConnectConfigDefs g = new KafkaConnectConfigDefs();
        ObjectNode root = MAPPER.createObjectNode();
        root.put("generator", "scripts/golden/kafka-connect-config-defs.sh (scripts/golden/KafkaConnectConfigDefs.java)");
        root.put("kafka_connect_version", AppInfoParser.getVersion());
        root.put("java_specification_version", System.getProperty("java.specification.version"));
        ArrayNode format = root.putArray("format");
        for (String line : FORMAT) {
            format.add(line);
        }
        root.set("plugins", MAPPER.valueToTree(g.resource.listConnectorPlugins(false)));
        ObjectNode config = root.putObject("config");
        for (String p : new String[] {"FileStreamSource", "FileStreamSink", "FileStreamSourceConnector",
                "org.apache.kafka.connect.file.FileStreamSinkConnector", "NoSuchConnector"}) {
            config.set(p, g.config(p));
        }
        String source = "org.apache.kafka.connect.file.FileStreamSourceConnector";
        String sink = "org.apache.kafka.connect.file.FileStreamSinkConnector";
        ArrayNode validate = root.putArray("validate");
        // The least a source and a sink need.
        validate.add(g.validate("FileStreamSource", "connector.class", source, "name", "src",
            "topic", "lines", "file", "/tmp/in.txt"));
        validate.add(g.validate("FileStreamSink", "connector.class", sink, "name", "snk",
            "topics", "lines", "file", "/tmp/out.txt"));
        // Framework keys with bad values: each error under its key.
        validate.add(g.validate("FileStreamSource", "connector.class", "FileStreamSource", "name", "src",
            "topic", "lines", "tasks.max", "0", "errors.tolerance", "some", "exactly.once.support", "maybe",
            "transaction.boundary", "sometimes", "errors.retry.timeout", "soon",
            "key.converter", "org.apache.kafka.connect.storage.StringConverter"));
        validate.add(g.validate("FileStreamSink", "connector.class", "FileStreamSink", "name", "snk",
            "errors.tolerance", "all", "errors.deadletterqueue.topic.name", "dlq"));
        // Transforms and predicates: their keys in their own groups.
        validate.add(g.validate("FileStreamSource", "connector.class", source, "name", "src",
            "topic", "lines", "transforms", "route,drop",
            "transforms.route.type", "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex", "(.*)", "transforms.route.replacement", "copy-$1",
            "transforms.drop.type", "org.apache.kafka.connect.transforms.Filter",
            "transforms.drop.predicate", "tombstone",
            "predicates", "tombstone",
            "predicates.tombstone.type", "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone"));
        validate.add(g.validate("FileStreamSink", "connector.class", sink, "name", "snk", "topics", "lines",
            "transforms", "missing", "transforms.missing.type", "com.example.NoSuchTransform"));
        // Topic creation groups: their keys in their own groups.
        validate.add(g.validate("FileStreamSource", "connector.class", source, "name", "src", "topic", "lines",
            "topic.creation.default.replication.factor", "1", "topic.creation.default.partitions", "1",
            "topic.creation.groups", "compacted", "topic.creation.compacted.include", "lines.*",
            "topic.creation.compacted.cleanup.policy", "compact"));
        // A connector.class that is not the plugin asked for.
        validate.add(g.validate("FileStreamSource", "connector.class", sink, "name", "x", "topics", "t"));
        validate.add(g.validate("NoSuchConnector", "connector.class", "NoSuchConnector", "name", "x"));

        NeutralJson.write(new File(args[0]), root);
        System.err.println("KafkaConnectConfigDefs: " + validate.size() + " validations");
        System.exit(0);
    }
}
