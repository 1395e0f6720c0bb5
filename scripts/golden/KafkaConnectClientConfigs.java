/*
 * The golden outputs of tests/golden/kafka-connect/client-configs.json: which
 * client settings Kafka Connect 4.4 gives a connector task's producer,
 * consumer and admin client, and what its
 * connector.client.config.override.policy refuses, for the cases of
 * tests/golden/kafka-connect/client-configs.cases.json. Run by
 * scripts/golden/kafka-connect-client-configs.sh (single-file source launch,
 * Kafka Connect's jars on the classpath):
 *
 *   java -cp "$(scripts/kafka-connect.sh classpath)" KafkaConnectClientConfigs.java CASES OUT
 *
 * Nothing here decides a setting: every map is what Kafka Connect's own
 * package-private static methods return (org.apache.kafka.connect.runtime.Worker:
 * baseProducerConfigs, exactlyOnceSourceTaskProducerConfigs,
 * baseConsumerConfigs, adminConfigs, called by reflection exactly as the
 * Worker calls them when it starts a task), for a DistributedConfig worker
 * config and a SourceConnectorConfig / SinkConnectorConfig, with the policy
 * Kafka Connect's Plugins instantiates from the worker config (as
 * AbstractConnectCli does). A method that throws is recorded as a refusal
 * (the exception's class and message). The policy's own verdict on each
 * override key (ConnectorClientConfigOverridePolicy.validate, what both the
 * Worker and the herder's validation consult) is recorded per key.
 * The output is deterministic: sorted keys, cases in the order of the file.
 */

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.connector.policy.ConnectorClientConfigOverridePolicy;
import org.apache.kafka.connect.connector.policy.ConnectorClientConfigRequest;
import org.apache.kafka.connect.file.FileStreamSinkConnector;
import org.apache.kafka.connect.file.FileStreamSourceConnector;
import org.apache.kafka.connect.health.ConnectorType;
import org.apache.kafka.connect.runtime.ConnectorConfig;
import org.apache.kafka.connect.runtime.SinkConnectorConfig;
import org.apache.kafka.connect.runtime.SourceConnectorConfig;
import org.apache.kafka.connect.runtime.Worker;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.runtime.distributed.DistributedConfig;
import org.apache.kafka.connect.runtime.isolation.Plugins;
import org.apache.kafka.connect.util.ConnectorTaskId;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

public class KafkaConnectClientConfigs {
    static final String POLICY = WorkerConfig.CONNECTOR_CLIENT_POLICY_CLASS_CONFIG;
    static final String CLUSTER_ID = "golden-cluster";

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: KafkaConnectClientConfigs CASES.json OUT.json");
            System.exit(2);
        }
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
        // One key or array element a line, so a change shows as a small diff.
        DefaultPrettyPrinter pretty = new DefaultPrettyPrinter();
        pretty.indentArraysWith(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE);
        JsonNode spec = json.readTree(new File(args[0]));
        // Plugins finds the policies (and resolves their aliases) as a worker does;
        // service loading only (no plugin.path).
        Plugins plugins = new Plugins(Map.of(WorkerConfig.PLUGIN_DISCOVERY_CONFIG, "service_load"));

        Map<String, String> workerBase = strings(spec.get("worker_base"));
        List<Object> cases = new ArrayList<>();
        for (JsonNode c : spec.get("cases")) {
            List<String> policies = new ArrayList<>();
            if (c.has("policies")) {
                c.get("policies").forEach(p -> policies.add(p.asText()));
            } else {
                policies.add(null);
            }
            for (String policy : policies) {
                Map<String, String> worker = new TreeMap<>(workerBase);
                worker.putAll(strings(c.get("worker")));
                String name = c.get("name").asText();
                if (policy != null) {
                    name += "/policy=" + policy;
                    if (!policy.equals("(default)")) {
                        worker.put(POLICY, policy);
                    }
                }
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("name", name);
                out.put("worker", worker);
                out.put("connector", strings(c.get("connector")));
                WorkerConfig workerConfig = new DistributedConfig(worker);
                ConnectorClientConfigOverridePolicy policyPlugin = plugins.newPlugin(
                        workerConfig.getString(POLICY), workerConfig, ConnectorClientConfigOverridePolicy.class);
                out.put("policy", policyPlugin.getClass().getName());
                for (String kind : List.of("source", "sink")) {
                    Map<String, String> conn = new TreeMap<>(strings(spec.get("connector_base").get(kind)));
                    conn.putAll(strings(c.get("connector")));
                    out.put(kind, kind(kind, workerConfig, conn, policyPlugin));
                }
                cases.add(out);
            }
        }

        Map<String, Object> golden = new LinkedHashMap<>();
        golden.put("about", List.of(
                "Generated by scripts/golden/kafka-connect-client-configs.sh from client-configs.cases.json: do not edit.",
                "What Kafka Connect " + AppInfoParser.getVersion() + "'s own code (its jars from Maven Central) gives a connector task's clients,",
                "for each case, as a source connector (producer, producer_exactly_once, admin) and as a sink connector (consumer, admin):",
                "the whole map org.apache.kafka.connect.runtime.Worker's baseProducerConfigs / exactlyOnceSourceTaskProducerConfigs /",
                "baseConsumerConfigs / adminConfigs return (Java client keys, Kafka Connect's own defaults, client.id and serializers included),",
                "or {refused: {exception, message}} when the method throws (the policy refusing an override).",
                "policy_refuses: each override key the policy refuses (ConnectorClientConfigOverridePolicy.validate), with the policy's message.",
                "Copycat's test compares only the keys that matter: every security key (security.protocol, ssl.*, sasl.*), bootstrap.servers,",
                "and the non-security client keys the case sets; the Java maps pass through Copycat's security::translate first,",
                "so the comparison is 'the same keys reach the same client with the same precedence', spelled as librdkafka spells them.",
                "Kafka Connect's other defaults (serializers, max.block.ms, enable.idempotence=false, metrics context) are recorded but",
                "not compared: Copycat's clients are librdkafka, with defaults of their own (docs/operators.md)."));
        golden.put("kafka_connect_version", AppInfoParser.getVersion());
        golden.put("default_policy", new DistributedConfig(workerBase).getString(POLICY));
        golden.put("cases", cases);
        json.writer(pretty).writeValue(new File(args[1]), golden);
    }

    /** The clients of one connector kind's task, and the policy's verdicts. */
    static Map<String, Object> kind(String kind, WorkerConfig worker, Map<String, String> conn,
                                    ConnectorClientConfigOverridePolicy policy) throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        boolean source = kind.equals("source");
        ConnectorType type = source ? ConnectorType.SOURCE : ConnectorType.SINK;
        Class<? extends Connector> connectorClass = source ? FileStreamSourceConnector.class : FileStreamSinkConnector.class;
        ConnectorConfig config;
        try {
            config = source
                    ? new SourceConnectorConfig(null, conn, worker.topicCreationEnable())
                    : new SinkConnectorConfig(null, conn);
        } catch (RuntimeException e) {
            out.put("connector_config_refused", refusal(e));
            return out;
        }
        String name = conn.get(ConnectorConfig.NAME_CONFIG);
        ConnectorTaskId task = new ConnectorTaskId(name, 0);

        Map<String, String> refuses = new TreeMap<>();
        for (ConnectorClientConfigRequest.ClientType client : ConnectorClientConfigRequest.ClientType.values()) {
            String prefix = client.name().toLowerCase() + ".override.";
            ConnectorClientConfigRequest request = new ConnectorClientConfigRequest(
                    name, type, connectorClass, config.originalsWithPrefix(prefix), client);
            for (ConfigValue v : policy.validate(request)) {
                if (!v.errorMessages().isEmpty()) {
                    refuses.put(prefix + v.name(), String.join("; ", v.errorMessages()));
                }
            }
        }
        out.put("policy_refuses", refuses);

        Class<?>[] base = {String.class, String.class, WorkerConfig.class, ConnectorConfig.class, Class.class,
            ConnectorClientConfigOverridePolicy.class, String.class};
        Class<?>[] typed = {String.class, String.class, WorkerConfig.class, ConnectorConfig.class, Class.class,
            ConnectorClientConfigOverridePolicy.class, String.class, ConnectorType.class};
        // The default client ids the Worker gives them (Worker.startTask's builders).
        if (source) {
            out.put("producer", call("baseProducerConfigs", base,
                    name, "connector-producer-" + task, worker, config, connectorClass, policy, CLUSTER_ID));
            out.put("producer_exactly_once", call("exactlyOnceSourceTaskProducerConfigs",
                    new Class<?>[] {ConnectorTaskId.class, WorkerConfig.class, ConnectorConfig.class, Class.class,
                        ConnectorClientConfigOverridePolicy.class, String.class},
                    task, worker, config, connectorClass, policy, CLUSTER_ID));
        } else {
            out.put("consumer", call("baseConsumerConfigs", typed,
                    name, "connector-consumer-" + task, worker, config, connectorClass, policy, CLUSTER_ID, type));
        }
        out.put("admin", call("adminConfigs", typed,
                name, "connector-adminclient-" + task, worker, config, connectorClass, policy, CLUSTER_ID, type));
        return out;
    }

    /** {settings: sorted map} or {refused: {exception, message}}. */
    static Map<String, Object> call(String method, Class<?>[] types, Object... args) throws Exception {
        Method m = Worker.class.getDeclaredMethod(method, types);
        m.setAccessible(true);
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> settings = (Map<String, Object>) m.invoke(null, args);
            Map<String, String> sorted = new TreeMap<>();
            settings.forEach((k, v) -> sorted.put(k, String.valueOf(v)));
            return Map.of("settings", sorted);
        } catch (InvocationTargetException e) {
            return Map.of("refused", refusal(e.getCause()));
        }
    }

    static Map<String, String> refusal(Throwable e) {
        Map<String, String> r = new TreeMap<>();
        r.put("exception", e.getClass().getName());
        r.put("message", String.valueOf(e.getMessage()));
        return r;
    }

    static Map<String, String> strings(JsonNode node) {
        Map<String, String> out = new TreeMap<>();
        if (node != null) {
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                out.put(e.getKey(), e.getValue().asText());
            }
        }
        return out;
    }
}
