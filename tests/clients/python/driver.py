#!/usr/bin/env python3
"""Drives every method of kafka-connect-py (PyPI; `from kafka_connect import
KafkaConnect`, a Python client of the Kafka Connect REST API), unchanged,
against one Kafka Connect REST endpoint: Copycat's or Kafka Connect's own
(scripts/rest-clients.sh run-python).

    driver.py URL NAME_PREFIX SOURCE_FILE SINK_FILE TOPIC

Each call prints one line, "ok <method>: <what came back>" or "FAILED
<method>: <error>"; the last line counts them, and the exit code is the number
of failures (capped at 100). Waits poll with deadlines. tests/all/rest_clients.rs
runs it against a Copycat worker and asserts the outcome.
"""
import os
import sys
import time

from kafka_connect import KafkaConnect

OK = 0
FAILED = []


def short(value):
    text = repr(value)
    return text if len(text) <= 300 else text[:300] + "..."


def call(method, body, check=None, expectation=""):
    global OK
    try:
        result = body()
    except Exception as e:  # the client raises requests' HTTPError and others
        FAILED.append(method)
        print(f"FAILED {method}: {type(e).__name__}: {e}", flush=True)
        return None
    if check is not None and not check(result):
        FAILED.append(method)
        print(f"FAILED {method}: expected {expectation}, got {short(result)}", flush=True)
        return result
    OK += 1
    print(f"ok {method}: {short(result)}", flush=True)
    return result


def expect_error(method, body):
    """A call the client must answer with an error (a 404 for a deleted connector)."""
    global OK
    try:
        result = body()
    except Exception as e:
        OK += 1
        print(f"ok {method}: {type(e).__name__}: {e}", flush=True)
        return
    FAILED.append(method)
    print(f"FAILED {method}: expected an error, got {short(result)}", flush=True)


def wait(method, body, check, expectation, timeout=60):
    """Call until `check` holds (at most `timeout` s), then one counted call."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check(body()):
                break
        except Exception:
            pass  # counted by the final call, if it persists
        time.sleep(0.2)
    return call(method, body, check, expectation)


def state_is(status, want):
    return (
        status is not None
        and status["connector"]["state"] == want
        and len(status["tasks"]) > 0
        and all(t["state"] == want for t in status["tasks"])
    )


def main():
    if len(sys.argv) != 6:
        print("usage: driver.py URL NAME_PREFIX SOURCE_FILE SINK_FILE TOPIC", file=sys.stderr)
        return 100
    url, prefix, source_file, sink_file, topic = sys.argv[1:]
    source, sink = f"{prefix}-source", f"{prefix}-sink"
    pattern = f"^{prefix}-"
    kc = KafkaConnect(url=url)
    string = "org.apache.kafka.connect.storage.StringConverter"
    # grants.fs.* (Copycat's sandbox: the directories a connector may read or
    # write) are ignored by Kafka Connect, whose connectors do not define them.
    source_dir, sink_dir = os.path.dirname(source_file), os.path.dirname(sink_file)
    source_config = {
        "connector.class": "FileStreamSource", "tasks.max": "1", "file": source_file,
        "topic": topic, "key.converter": string, "value.converter": string,
        "grants.fs.read": source_dir,
    }
    sink_config = {
        "connector.class": "FileStreamSink", "tasks.max": "1", "file": sink_file,
        "topics": topic, "key.converter": string, "value.converter": string,
        "grants.fs.write": sink_dir,
    }

    call("get_cluster_info", kc.get_cluster_info, lambda r: bool(r.get("version")), "a version")
    call("list_connector_plugins", kc.list_connector_plugins,
         lambda r: {"source", "sink"} <= {p["type"] for p in r}, "a source and a sink plugin")
    call("validate_connector_config",
         lambda: kc.validate_connector_config("FileStreamSource", dict(source_config, name=source)),
         lambda r: r["error_count"] == 0 and len(r["configs"]) > 0, "0 errors")
    call("create_connector(source)", lambda: kc.create_connector({"name": source, "config": source_config}),
         lambda r: r["name"] == source and r["type"] == "source", "the created source")
    call("create_connector(sink)", lambda: kc.create_connector({"name": sink, "config": sink_config}),
         lambda r: r["name"] == sink and r["type"] == "sink", "the created sink")
    wait("get_connector_status(running)", lambda: kc.get_connector_status(source),
         lambda s: state_is(s, "RUNNING"), "connector and tasks RUNNING")
    wait("get_connector_status(sink running)", lambda: kc.get_connector_status(sink),
         lambda s: state_is(s, "RUNNING"), "connector and tasks RUNNING")
    call("list_connectors", kc.list_connectors, lambda r: source in r and sink in r, "both names")
    call("list_connectors(expand=status, state=running, pattern)",
         lambda: kc.list_connectors(expand="status", pattern=pattern, state="running"),
         lambda r: set(r) == {source, sink}, "both, RUNNING")
    call("list_connectors(expand=info)", lambda: kc.list_connectors(expand="info", pattern=pattern),
         lambda r: r[sink]["info"]["config"]["topics"] == topic, "the sink's info")
    call("get_connector", lambda: kc.get_connector(source),
         lambda r: r["name"] == source and r["config"]["file"] == source_file, "the source")
    call("get_connector_config", lambda: kc.get_connector_config(source),
         lambda r: r["topic"] == topic and r["connector.class"] == "FileStreamSource", "its config")
    call("list_connector_tasks", lambda: kc.list_connector_tasks(source), lambda r: len(r) == 1, "one task")
    call("get_connector_task_status", lambda: kc.get_connector_task_status(source, 0),
         lambda r: r["state"] == "RUNNING", "RUNNING")
    wait("list_connector_topics", lambda: kc.list_connector_topics(sink),
         lambda r: topic in r[sink]["topics"], "the topic")
    call("update_connector", lambda: kc.update_connector(source, dict(source_config, **{"batch.size": "100"})),
         lambda r: r["config"]["batch.size"] == "100", "batch.size 100")
    wait("get_connector_status(after update)", lambda: kc.get_connector_status(source),
         lambda s: state_is(s, "RUNNING"), "RUNNING")
    call("pause_connector", lambda: kc.pause_connector(source))
    wait("get_connector_status(paused)", lambda: kc.get_connector_status(source),
         lambda s: state_is(s, "PAUSED"), "PAUSED")
    call("resume_connector", lambda: kc.resume_connector(source))
    wait("get_connector_status(resumed)", lambda: kc.get_connector_status(source),
         lambda s: state_is(s, "RUNNING"), "RUNNING")
    call("restart_connector", lambda: kc.restart_connector(source))
    call("restart_connector(include_tasks)", lambda: kc.restart_connector(source, include_tasks=True),
         lambda r: r is None or r["name"] == source, "a restart")
    wait("get_connector_status(restarted)", lambda: kc.get_connector_status(source),
         lambda s: state_is(s, "RUNNING"), "RUNNING")
    call("restart_connector(include_tasks, only_failed)",
         lambda: kc.restart_connector(source, include_tasks=True, only_failed=True),
         lambda r: r is None or r["name"] == source, "a restart")
    call("restart_connector_task", lambda: kc.restart_connector_task(source, 0))
    wait("get_connector_status(task restarted)", lambda: kc.get_connector_status(source),
         lambda s: state_is(s, "RUNNING"), "RUNNING")
    call("restart_all_connectors", lambda: kc.restart_all_connectors(pattern=pattern))
    call("pause_all_connectors", lambda: kc.pause_all_connectors(pattern=pattern))
    wait("list_connectors(all paused)", lambda: kc.list_connectors(expand="status", pattern=pattern, state="paused"),
         lambda r: set(r) == {source, sink}, "both PAUSED")
    call("resume_all_connectors", lambda: kc.resume_all_connectors(pattern=pattern))
    wait("list_connectors(all running)", lambda: kc.list_connectors(expand="status", pattern=pattern, state="running"),
         lambda r: set(r) == {source, sink}, "both RUNNING")
    call("reset_connector_topics", lambda: kc.reset_connector_topics(sink))
    call("list_connector_topics(after reset)", lambda: kc.list_connector_topics(sink),
         lambda r: r[sink]["topics"] == [], "no topics")
    call("stop_connector", lambda: kc.stop_connector(source))
    wait("get_connector_status(stopped)", lambda: kc.get_connector_status(source),
         lambda s: s["connector"]["state"] == "STOPPED", "STOPPED")
    call("stop_all_connectors", lambda: kc.stop_all_connectors(pattern=pattern))
    wait("list_connectors(all stopped)", lambda: kc.list_connectors(expand="status", pattern=pattern, state="stopped"),
         lambda r: set(r) == {source, sink}, "both STOPPED")
    call("delete_connector", lambda: kc.delete_connector(source))
    call("delete_all_connectors", lambda: kc.delete_all_connectors(pattern=pattern))
    wait("list_connectors(after delete)", lambda: kc.list_connectors(pattern=pattern), lambda r: r == [], "none")
    expect_error("get_connector(deleted)", lambda: kc.get_connector(source))

    print(f"python driver: {OK} ok, {len(FAILED)} failed {FAILED}", flush=True)
    return min(len(FAILED), 100)


if __name__ == "__main__":
    sys.exit(main())
