"""Native unit tests (plain CPython, no component, no broker):

    PYTHONPATH=../../../guest-sdk/python python3 -m pytest   (or -m unittest, in this directory)
"""

import os
import tempfile
import unittest
from unittest import mock

import datetime
import decimal

from copycat_sdk import (
    BYTES,
    DATE,
    INT32,
    INT64,
    SCHEMALESS,
    STRING,
    TIMESTAMP,
    Config,
    ConfigError,
    FatalError,
    SinkRecord,
    SourceBatch,
    Struct,
    TopicPartition,
    array_schema,
    decimal_schema,
    errant,
    map_schema,
    struct_schema,
)

from file_sink import FileSink, FileSinkTask

TP = TopicPartition("t", 0)


def records(offsets, tp=TP):
    return [SinkRecord(tp.topic, tp.partition, o, None, f"v{o}".encode() if o % 5 else None) for o in offsets]


class FileSinkTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def task(self):
        task = FileSinkTask()
        task.start(Config({"directory": self.dir.name}))
        return task

    def read(self, name):
        with open(os.path.join(self.dir.name, name), "rb") as f:
            return f.read()

    def test_validate(self):
        self.assertEqual([p.key for p in FileSink().validate(Config({}))], ["directory"])
        with self.assertRaises(ConfigError) as e:
            FileSinkTask().start(Config({}))
        self.assertIn("directory", str(e.exception))

    def test_put_flush_reopen(self):
        task = self.task()
        self.assertEqual(task.open([TP]), {})
        task.put(records(range(0, 3)))
        task.flush({TP: 3})
        self.assertEqual(self.read("t-0.txt"), b"\nv1\nv2\n")
        self.assertEqual(self.read("t-0.offset"), b"3 7")
        task.put(records(range(3, 6)))  # not flushed: dropped on reopen
        task.stop()

        task = self.task()
        self.assertEqual(task.open([TP, TopicPartition("t", 1)]), {TP: 3})
        self.assertEqual(self.read("t-0.txt"), b"\nv1\nv2\n")
        task.put(records(range(3, 5)))
        task.flush({})
        self.assertEqual(self.read("t-0.txt"), b"\nv1\nv2\nv3\nv4\n")
        self.assertEqual(self.read("t-0.offset"), b"5 13")
        self.assertFalse(os.path.exists(os.path.join(self.dir.name, "t-0.offset.tmp")))
        task.close([TP])
        task.stop()

    def test_errant_records_are_reported_not_written(self):
        errant.take_reported()
        task = self.task()
        task.put([records([1])[0], SinkRecord("t", 0, 2, None, b"errant:too odd"), records([3])[0]])
        self.assertEqual(errant.take_reported(), [(1, "too odd")])
        task.flush({})
        self.assertEqual(self.read("t-0.txt"), b"v1\nv3\n")
        self.assertEqual(self.read("t-0.offset"), b"4 6")  # the reported record's offset advances

        # Only errant records in a partition: its offset still advances.
        task.put([SinkRecord("t", 1, 7, None, b"errant:")])
        self.assertEqual(errant.take_reported(), [(0, "")])
        task.flush({})
        self.assertEqual(self.read("t-1.offset"), b"8 0")

    def test_typed_values_are_written_as_compact_json(self):
        point = struct_schema("Point", [("x", INT32), ("y", INT32.as_optional())])
        row = struct_schema(
            "com.example.Row",
            [
                ("name", STRING),
                ("tags", array_schema(STRING)),
                ("by_id", map_schema(INT64, point)),
                ("raw", BYTES),
                ("amount", decimal_schema(2)),
                ("day", DATE),
                ("at", TIMESTAMP),
                ("none", STRING.as_optional()),
            ],
        )
        value = Struct(
            row,
            name='Ada "L"\\ é\n',
            tags=["a", ""],
            by_id={7: Struct(point, x=1, y=None)},
            raw=b"\x00\xff",
            amount=decimal.Decimal("-123.45"),
            day=datetime.date(1970, 1, 3),
            at=datetime.datetime(1970, 1, 1, 0, 0, 1, tzinfo=datetime.timezone.utc),
        )
        batch = SourceBatch()  # through the real encoding and decoding
        batch.add(None, value, value_schema=row, topic="t")
        batch.add(None, "plain text", value_schema=STRING, topic="t")
        batch.add(None, {"k": [1, None, True], "b": b"\x01"}, value_schema=SCHEMALESS, topic="t")
        batch.add(None, None, value_schema=STRING.as_optional(), topic="t")
        batch.add(None, b"raw {bytes}", topic="t")
        task = self.task()
        task.put(batch.to_sink_batch())
        task.flush({})
        self.assertEqual(
            self.read("t-0.txt").decode(),
            '{"name":"Ada \\"L\\"\\\\ é\\n","tags":["a",""],"by_id":{"7":{"x":1,"y":null}},'
            '"raw":"AP8=","amount":"z8c=","day":2,"at":1000,"none":null}\n'
            '"plain text"\n'
            '{"k":[1,null,true],"b":"AQ=="}\n'
            "\n"
            "raw {bytes}\n",
        )

    def test_a_typed_errant_string_is_reported(self):
        errant.take_reported()
        batch = SourceBatch()
        batch.add(None, "errant:typed reason", value_schema=STRING, topic="t")
        batch.add(None, "fine", value_schema=STRING, topic="t")
        task = self.task()
        task.put(batch.to_sink_batch())
        self.assertEqual(errant.take_reported(), [(0, "typed reason")])
        task.flush({})
        self.assertEqual(self.read("t-0.txt"), b'"fine"\n')
        self.assertEqual(self.read("t-0.offset"), b"2 7")

    def test_a_failed_report_is_fatal_and_names_the_record(self):
        task = self.task()
        with mock.patch.object(errant, "report", side_effect=errant.ReporterUnavailable()):
            with self.assertRaises(FatalError) as e:
                task.put(records([1]) + [SinkRecord("t", 0, 2, None, b"errant:bad")])
        self.assertIn("topic t partition 0 offset 2", str(e.exception))
        self.assertIn("errors.deadletterqueue.topic.name", str(e.exception))

    def test_bad_state_file_is_fatal_and_named(self):
        with open(os.path.join(self.dir.name, "t-0.offset"), "w") as f:
            f.write("garbage")
        with self.assertRaises(FatalError) as e:
            self.task().open([TP])
        self.assertIn("t-0.offset", str(e.exception))

    def test_missing_directory_is_fatal_and_named(self):
        task = FileSinkTask()
        task.start(Config({"directory": os.path.join(self.dir.name, "nope")}))
        with self.assertRaises(FatalError) as e:
            task.put(records([1]))
        self.assertIn("nope/t-0.txt", str(e.exception))


if __name__ == "__main__":
    unittest.main()
