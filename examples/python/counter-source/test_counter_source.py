"""Native unit tests (plain CPython, no component, no broker):

    PYTHONPATH=../../../guest-sdk/python python3 -m pytest   (or -m unittest, in this directory)
"""

import os
import tempfile
import unittest
from unittest import mock

from copycat_sdk import STRING, Config, ConfigError, FatalError, RetriableError, Struct, dynamic

from counter_source import COUNT_SCHEMA, CounterInstance, CounterSource, CounterTask, raw_records, simple_raw_records


def started(offsets=None, **config):
    """A started task; ``offsets`` maps stream names to committed offsets."""
    offsets = offsets or {}
    task = CounterTask()
    with mock.patch.object(
        CounterTask, "read_offsets", staticmethod(lambda ps: [offsets.get(p["stream"]) for p in ps])
    ):
        task.start(Config({"topic": "t", **config}))
    return task


def keys(batch):
    return [r.key.decode() if isinstance(r.key, bytes) else r.key for r in batch.to_sink_batch()]


class CounterSourceTest(unittest.TestCase):
    def test_describe(self):
        info = CounterSource().describe()
        self.assertEqual((info.name, info.version), ("counter-source", "0.1.0"))
        self.assertEqual(
            [k.name for k in info.config_def], ["topic", "streams", "count", "typed", "value.size", "streams.file"]
        )

    def test_validate_reports_each_bad_key(self):
        found = CounterSource().validate(
            Config({"streams": "0", "count": "-5", "value.size": "-1", "typed": "maybe"})
        )
        self.assertEqual(sorted(p.key for p in found), ["count", "streams", "topic", "typed", "value.size"])
        self.assertEqual(CounterSource().validate(Config({"topic": "t"})), [])

    def test_task_configs_spread_the_streams(self):
        configs = CounterSource().task_configs(Config({"topic": "t", "streams": "5"}), 2)
        self.assertEqual([c["counter.streams.assigned"] for c in configs], ["0,2,4", "1,3"])
        self.assertEqual(configs[0]["topic"], "t")
        self.assertEqual(len(CounterSource().task_configs(Config({"topic": "t", "streams": "2"}), 8)), 2)

    def test_poll_round_robin_until_count(self):
        task = started(streams="2", count="2")
        first = task.poll(3)
        self.assertEqual(keys(first), ["stream-0:0", "stream-1:0", "stream-0:1"])
        self.assertEqual(
            first.finish().positions,
            [('{"stream":"stream-0"}', '{"seq":1}'), ('{"stream":"stream-1"}', '{"seq":0}')],
        )
        second = task.poll(10)
        self.assertEqual(keys(second), ["stream-1:1"])
        self.assertEqual([r.value for r in second.to_sink_batch()], [b"1"])
        self.assertTrue(task.poll(10).is_empty())

    def test_raw_values_are_padded_to_value_size(self):
        task = started(count="0", **{"value.size": "100"})
        batch = task.poll(1000)
        records = batch.to_sink_batch()
        self.assertEqual(len(records), 1000)
        self.assertEqual(records[0].value, b"0" + b"." * 99)
        self.assertEqual(records[999].value, b"999" + b"." * 97)
        self.assertEqual(records[999].key, b"stream-0:999")
        self.assertEqual(batch.offset({"stream": "stream-0"}), {"seq": 999})
        short = started(**{"value.size": "2"}).poll(11).to_sink_batch()
        self.assertEqual([r.value for r in short][9:], [b"9.", b"10"])

    def test_the_packed_records_are_the_plain_ones(self):
        for start in [0, 1, 5, 9, 10, 11, 95, 99, 100, 994, 999, 1000, 12345, 99999]:
            for n in [0, 1, 2, 9, 10, 11, 21, 1000]:
                for size in [0, 1, 3, 100]:
                    self.assertEqual(
                        raw_records("stream-3", start, start + n, size),
                        simple_raw_records("stream-3", start, start + n, size),
                        (start, n, size),
                    )

    def test_typed_records(self):
        batch = started(typed="true", count="2").poll(10)
        columns = batch.finish()
        records = batch.to_sink_batch()
        self.assertEqual([r.key for r in records], ["stream-0:0", "stream-0:1"])
        self.assertEqual(records[0].key_schema, STRING)
        self.assertEqual(records[0].value_schema, COUNT_SCHEMA)
        self.assertEqual(COUNT_SCHEMA.name, "copycat.examples.Count")
        self.assertEqual(
            [(f.name, f.schema.type.value, f.schema.optional) for f in COUNT_SCHEMA.fields],
            [("stream", "string", False), ("seq", "int64", False), ("even", "boolean", False), ("note", "string", True)],
        )
        self.assertEqual(dict(records[0].value), {"stream": "stream-0", "seq": 0, "even": True, "note": "n0"})
        self.assertIsInstance(records[1].value, Struct)
        self.assertEqual(dict(records[1].value), {"stream": "stream-0", "seq": 1, "even": False, "note": None})
        # The value of seq 1, byte for byte (batch.wit's encoding).
        value_1 = b"\x08\x00\x00\x00stream-0" + (1).to_bytes(8, "little") + b"\x00" + b"\x00"
        self.assertIn(value_1, columns.data)

    def test_resumes_after_committed_offsets(self):
        task = started({"stream-1": {"seq": 4}}, streams="3", count="6", **{"counter.streams.assigned": "1,2"})
        self.assertEqual(keys(task.poll(3)), ["stream-1:5", "stream-2:0", "stream-2:1"])

    def test_a_committed_offset_without_seq_is_fatal(self):
        with self.assertRaises(FatalError) as e:
            started({"stream-0": {"position": 3}})
        self.assertIn("stream-0", str(e.exception))

    def test_unbounded(self):
        task = started(count="0")
        self.assertEqual(len(task.poll(1000)), 1000)
        self.assertEqual(keys(task.poll(1))[0], "stream-0:1000")

    def test_bad_config_names_the_key(self):
        for key, value in [("streams", "abc"), ("count", "-1"), ("value.size", "x"), ("typed", "yes")]:
            with self.assertRaises(ConfigError) as e:
                started(**{key: value})
            self.assertIn(key, str(e.exception))
        with self.assertRaises(ConfigError) as e:
            CounterTask().start(Config({}))
        self.assertIn("topic", str(e.exception))


class DynamicTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.file = os.path.join(self.dir.name, "streams")
        dynamic.take_requests()

    def write(self, text):
        with open(self.file, "w") as f:
            f.write(text)

    def test_nothing_to_watch_without_streams_file(self):
        instance = CounterInstance()
        self.assertFalse(instance.start(Config({"topic": "t", "streams": "3"})))
        self.assertEqual(len(instance.task_configs(2)), 2)

    def test_watches_the_file(self):
        self.write(" 2\n")
        instance = CounterInstance()
        self.assertTrue(instance.start(Config({"topic": "t", "streams.file": self.file})))
        configs = instance.task_configs(8)
        self.assertEqual([(c["streams"], c["counter.streams.assigned"]) for c in configs], [("2", "0"), ("2", "1")])
        instance.monitor()
        self.assertEqual(dynamic.take_requests(), [])
        self.write("3")
        instance.monitor()
        self.assertEqual(dynamic.take_requests(), [("reconfigure", "")])
        self.assertEqual([c["counter.streams.assigned"] for c in instance.task_configs(2)], ["0,2", "1"])
        os.remove(self.file)
        with self.assertRaises(RetriableError) as e:
            instance.monitor()
        self.assertIn(self.file, str(e.exception))

    def test_a_bad_file_is_a_config_error(self):
        for text in ["0", "two", ""]:
            self.write(text)
            with self.assertRaises(ConfigError) as e:
                CounterInstance().start(Config({"topic": "t", "streams.file": self.file}))
            self.assertIn("streams.file", str(e.exception))
            self.assertIn(self.file, str(e.exception))


if __name__ == "__main__":
    unittest.main()
