// Drives every method of org.sourcelab:kafka-connect-client (the Java Kafka
// Connect REST client AKHQ uses), unchanged, against one Kafka Connect REST
// endpoint: Copycat's or Kafka Connect's own (scripts/rest-clients.sh run-java).
//
//   java KafkaConnectClientDriver URL NAME_PREFIX SOURCE_FILE SINK_FILE TOPIC
//
// Each call prints one line, "ok <method>: <what came back>" or
// "FAILED <method>: <exception>"; the last line counts them, and the exit code
// is the number of failures (capped at 100). Waits poll with deadlines.
// tests/all/rest_clients.rs runs it against a Copycat worker and asserts the
// outcome; the connectors are Kafka Connect's FileStreamSource/FileStreamSink
// (by their aliases, which Copycat maps onto file-source/file-sink).

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

import org.sourcelab.kafka.connect.apiclient.Configuration;
import org.sourcelab.kafka.connect.apiclient.KafkaConnectClient;
import org.sourcelab.kafka.connect.apiclient.request.dto.ConnectServerVersion;
import org.sourcelab.kafka.connect.apiclient.request.dto.ConnectorDefinition;
import org.sourcelab.kafka.connect.apiclient.request.dto.ConnectorPlugin;
import org.sourcelab.kafka.connect.apiclient.request.dto.ConnectorPluginConfigDefinition;
import org.sourcelab.kafka.connect.apiclient.request.dto.ConnectorPluginConfigValidationResults;
import org.sourcelab.kafka.connect.apiclient.request.dto.ConnectorStatus;
import org.sourcelab.kafka.connect.apiclient.request.dto.ConnectorTopics;
import org.sourcelab.kafka.connect.apiclient.request.dto.ConnectorsWithExpandedInfo;
import org.sourcelab.kafka.connect.apiclient.request.dto.ConnectorsWithExpandedMetadata;
import org.sourcelab.kafka.connect.apiclient.request.dto.ConnectorsWithExpandedStatus;
import org.sourcelab.kafka.connect.apiclient.request.dto.NewConnectorDefinition;
import org.sourcelab.kafka.connect.apiclient.request.dto.Task;
import org.sourcelab.kafka.connect.apiclient.request.dto.TaskStatus;
import org.sourcelab.kafka.connect.apiclient.request.post.PostConnectorRestart;

public final class KafkaConnectClientDriver {
    private static int ok = 0;
    private static final List<String> failed = new ArrayList<>();

    /** Run one client call; print and count its outcome. */
    private static <T> T call(String method, Callable<T> body, Predicate<T> check, String expectation) {
        try {
            T result = body.call();
            if (check != null && !check.test(result)) {
                failed.add(method);
                System.out.println("FAILED " + method + ": expected " + expectation + ", got " + shorten(String.valueOf(result)));
                return result;
            }
            ok++;
            System.out.println("ok " + method + ": " + shorten(String.valueOf(result)));
            return result;
        } catch (Exception e) {
            failed.add(method);
            System.out.println("FAILED " + method + ": " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return null;
        }
    }

    private static String shorten(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300) + "...";
    }

    /** Call until `check` holds, for at most 60 s; then one counted call. */
    private static <T> T await(String method, Callable<T> body, Predicate<T> check, String expectation)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
            try {
                T result = body.call();
                if (result != null && check.test(result)) {
                    break;
                }
            } catch (Exception e) {
                // Counted by the final call below, if it persists.
            }
            Thread.sleep(200);
        }
        return call(method, body, check, expectation);
    }

    private static boolean state(ConnectorStatus s, String want) {
        return s != null && want.equals(s.getConnector().get("state"))
                && !s.getTasks().isEmpty()
                && s.getTasks().stream().allMatch(t -> want.equals(t.getState()));
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: KafkaConnectClientDriver URL NAME_PREFIX SOURCE_FILE SINK_FILE TOPIC");
            System.exit(100);
        }
        String url = args[0], prefix = args[1], sourceFile = args[2], sinkFile = args[3], topic = args[4];
        String source = prefix + "-source", sink = prefix + "-sink";
        KafkaConnectClient client = new KafkaConnectClient(new Configuration(url).useRequestTimeoutInSeconds(90));

        call("getConnectServerVersion", client::getConnectServerVersion,
                v -> v.getVersion() != null && !v.getVersion().isEmpty(), "a version");
        call("getConnectorPlugins", client::getConnectorPlugins,
                ps -> ps.stream().anyMatch(p -> "source".equals(p.getType()))
                        && ps.stream().anyMatch(p -> "sink".equals(p.getType())),
                "a source and a sink plugin");

        Map<String, String> sourceConfig = new HashMap<>();
        sourceConfig.put("connector.class", "FileStreamSource");
        sourceConfig.put("tasks.max", "1");
        sourceConfig.put("file", sourceFile);
        sourceConfig.put("topic", topic);
        // Copycat's sandbox: the directories a connector may read or write
        // (Kafka Connect ignores keys its connectors do not define).
        String sourceDir = new java.io.File(sourceFile).getParent(), sinkDir = new java.io.File(sinkFile).getParent();
        sourceConfig.put("grants.fs.read", sourceDir);
        sourceConfig.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        sourceConfig.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        Map<String, String> validated = new HashMap<>(sourceConfig);
        validated.put("name", source);
        call("validateConnectorPluginConfig",
                () -> client.validateConnectorPluginConfig(new ConnectorPluginConfigDefinition("FileStreamSource", validated)),
                r -> r.getErrorCount() == 0 && !r.getConfigs().isEmpty(), "0 errors");

        call("addConnector(source)", () -> client.addConnector(new NewConnectorDefinition(source, sourceConfig)),
                d -> source.equals(d.getName()) && "source".equals(d.getType()), "the created source");
        Map<String, String> sinkConfig = new HashMap<>();
        sinkConfig.put("connector.class", "FileStreamSink");
        sinkConfig.put("tasks.max", "1");
        sinkConfig.put("file", sinkFile);
        sinkConfig.put("topics", topic);
        sinkConfig.put("grants.fs.write", sinkDir);
        sinkConfig.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        sinkConfig.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        call("addConnector(sink)", () -> client.addConnector(new NewConnectorDefinition(sink, sinkConfig)),
                d -> sink.equals(d.getName()) && "sink".equals(d.getType()), "the created sink");

        await("getConnectorStatus(running)", () -> client.getConnectorStatus(source), s -> state(s, "RUNNING"),
                "connector and tasks RUNNING");
        await("getConnectorStatus(sink running)", () -> client.getConnectorStatus(sink), s -> state(s, "RUNNING"),
                "connector and tasks RUNNING");
        call("getConnectors", client::getConnectors, c -> c.contains(source) && c.contains(sink), "both names");
        call("getConnectorsWithExpandedStatus", client::getConnectorsWithExpandedStatus,
                e -> e.getConnectorNames().contains(source)
                        && "RUNNING".equals(e.getStatusForConnector(source).getConnector().get("state")),
                "the source RUNNING");
        call("getConnectorsWithExpandedInfo", client::getConnectorsWithExpandedInfo,
                e -> e.getDefinitionForConnector(sink) != null
                        && topic.equals(e.getDefinitionForConnector(sink).getConfig().get("topics")),
                "the sink's definition");
        call("getConnectorsWithAllExpandedMetadata", client::getConnectorsWithAllExpandedMetadata,
                e -> e.getDefinitionForConnector(source) != null && e.getStatusForConnector(sink) != null,
                "definitions and statuses");
        call("getConnector", () -> client.getConnector(source),
                d -> source.equals(d.getName()) && sourceFile.equals(d.getConfig().get("file")), "the source");
        call("getConnectorConfig", () -> client.getConnectorConfig(source),
                c -> topic.equals(c.get("topic")) && "FileStreamSource".equals(c.get("connector.class")), "its config");
        call("getConnectorTasks", () -> client.getConnectorTasks(source), t -> t.size() == 1, "one task");
        call("getConnectorTaskStatus", () -> client.getConnectorTaskStatus(source, 0),
                t -> "RUNNING".equals(t.getState()), "RUNNING");
        await("getConnectorTopics", () -> client.getConnectorTopics(sink),
                t -> t.getTopics() != null && t.getTopics().contains(topic), "the topic");
        Map<String, String> updated = new HashMap<>(sourceConfig);
        updated.put("batch.size", "100");
        call("updateConnectorConfig", () -> client.updateConnectorConfig(source, updated),
                d -> "100".equals(d.getConfig().get("batch.size")), "batch.size 100");
        await("getConnectorStatus(after update)", () -> client.getConnectorStatus(source), s -> state(s, "RUNNING"),
                "RUNNING");
        call("pauseConnector", () -> client.pauseConnector(source), b -> b, "true");
        await("getConnectorStatus(paused)", () -> client.getConnectorStatus(source), s -> state(s, "PAUSED"),
                "connector and tasks PAUSED");
        call("resumeConnector", () -> client.resumeConnector(source), b -> b, "true");
        await("getConnectorStatus(resumed)", () -> client.getConnectorStatus(source), s -> state(s, "RUNNING"),
                "RUNNING");
        call("restartConnector", () -> client.restartConnector(source), b -> b, "true");
        await("getConnectorStatus(restarted)", () -> client.getConnectorStatus(source), s -> state(s, "RUNNING"),
                "RUNNING");
        call("restartConnector(includeTasks, onlyFailed)",
                () -> client.restartConnector(new PostConnectorRestart(source).withIncludeTasks(true).withOnlyFailed(true)),
                b -> b, "true");
        call("restartConnector(includeTasks)",
                () -> client.restartConnector(new PostConnectorRestart(source).withIncludeTasks(true)), b -> b, "true");
        await("getConnectorStatus(restarted with tasks)", () -> client.getConnectorStatus(source),
                s -> state(s, "RUNNING"), "RUNNING");
        call("restartConnectorTask", () -> client.restartConnectorTask(source, 0), b -> b, "true");
        await("getConnectorStatus(task restarted)", () -> client.getConnectorStatus(source), s -> state(s, "RUNNING"),
                "RUNNING");
        call("resetConnectorTopics", () -> client.resetConnectorTopics(sink), b -> b, "true");
        call("getConnectorTopics(after reset)", () -> client.getConnectorTopics(sink),
                t -> t.getTopics() != null && t.getTopics().isEmpty(), "no topics");
        call("deleteConnector(sink)", () -> client.deleteConnector(sink), b -> b, "true");
        call("deleteConnector(source)", () -> client.deleteConnector(source), b -> b, "true");
        await("getConnectors(after delete)", client::getConnectors,
                c -> !c.contains(source) && !c.contains(sink), "neither name");
        // A missing connector: the client turns the 404 into an exception.
        try {
            client.getConnector(source);
            failed.add("getConnector(deleted)");
            System.out.println("FAILED getConnector(deleted): no error for a deleted connector");
        } catch (Exception e) {
            ok++;
            System.out.println("ok getConnector(deleted): " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }

        System.out.println("java driver: " + ok + " ok, " + failed.size() + " failed " + failed);
        System.exit(Math.min(failed.size(), 100));
    }
}
