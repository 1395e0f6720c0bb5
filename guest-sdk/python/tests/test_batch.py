"""Source batches (the columns of wit/connector@0.3.0/batch.wit) and their
reading back as sink records (plain CPython)."""

import unittest
from dataclasses import dataclass
from types import SimpleNamespace

from copycat_sdk import (
    INT32,
    SCHEMALESS,
    STRING,
    DataError,
    FatalError,
    Header,
    SinkBatch,
    SourceBatch,
    SourceRecord,
    Struct,
    schema_of,
)


def u32(n):
    return n.to_bytes(4, "little")


@dataclass
class Point:
    x: int
    y: int


class SourceBatchTest(unittest.TestCase):
    def test_raw_records_use_only_the_required_columns(self):
        b = SourceBatch()
        b.append("k1", b"v1")
        b.append(None, None)
        b.extend([b"k3"], [b"v3"])
        b.extend(["k4", "kü"], ["v4", "v5"])
        b.extend_packed(b"k6v6six", [2], [5])
        b.advance({"stream": "s", "n": 1}, {"seq": 1})
        b.advance({"n": 1, "stream": "s"}, {"seq": 2})  # the same partition: the latest offset counts
        c = b.finish()
        self.assertEqual(c.data, "k1v1k3v3k4v4küv5k6v6six".encode())
        self.assertEqual(c.key_lengths, [2, -1, 2, 2, 3, 2])
        self.assertEqual(c.value_lengths, [2, -1, 2, 2, 2, 5])
        for column in (c.topics, c.topic_indices, c.partitions, c.timestamps, c.header_counts,
                       c.header_key_lengths, c.header_value_lengths, c.schemas, c.key_schemas,
                       c.value_schemas, c.header_schemas):
            self.assertEqual(column, [])
        self.assertEqual(c.positions, [('{"n":1,"stream":"s"}', '{"seq":2}')])
        self.assertEqual(len(b), 6)

    def test_packed_bytes_first_then_more_records(self):
        for more in (lambda b: b.append(b"k", b"v"), lambda b: b.extend([b"k"], [b"v"]),
                     lambda b: b.extend_packed(b"kv", [1], [1]), lambda b: b.add(b"k", 1, value_schema=INT32)):
            b = SourceBatch()
            b.extend_packed("abcd", [1, 1], [1, 1])
            more(b)
            c = b.finish()
            self.assertTrue(c.data.startswith(b"abcdk"), c.data)
            self.assertEqual(c.key_lengths, [1, 1, 1])

    def test_optional_columns_fill_in_once_used(self):
        b = SourceBatch()
        b.append(b"a", b"1")
        b.add(b"b", 2, value_schema=INT32, topic="other", partition=3, timestamp=99,
              headers=[("h1", b"x"), ("h2", None), ("h3", "t", STRING)])
        b.append(b"c", b"3")  # after a typed record: through the general path
        c = b.finish()
        self.assertEqual(c.topics, ["other"])
        self.assertEqual(c.topic_indices, [-1, 0, -1])
        self.assertEqual(c.partitions, [-1, 3, -1])
        self.assertEqual(c.timestamps, [-1, 99, -1])
        self.assertEqual(c.header_counts, [0, 3, 0])
        self.assertEqual(c.header_key_lengths, [2, 2, 2])
        self.assertEqual(c.header_value_lengths, [1, -1, 5])
        self.assertEqual(c.header_schemas, [-1, -1, 1])
        self.assertEqual(c.key_schemas, [])
        self.assertEqual(c.value_schemas, [-1, 0, -1])
        self.assertEqual([n.type.value for n in c.schemas], ["int32", "string"])
        self.assertEqual(c.data, b"a1" + b"b" + b"\x02\x00\x00\x00" + b"h1x" + b"h2" + b"h3" + u32(1) + b"t" + b"c3")

    def test_schemas_are_inferred_or_given(self):
        b = SourceBatch()
        b.add(None, Point(1, 2))  # a dataclass: its struct schema
        b.add(None, {"a": 1})  # a dict without a schema: schemaless
        b.add(None, "text", value_schema=STRING)
        b.add(None, None, value_schema=SCHEMALESS)
        b.add(None, None, value_schema=STRING.as_optional())
        c = b.finish()
        self.assertEqual(c.value_schemas, [1, -2, 2, -2, 3])  # Point: int64 (node 0), then its struct
        self.assertEqual(c.value_lengths, [16, 20, 8, -1, -1])
        records = b.to_sink_batch()
        self.assertEqual(records[0].value, Struct(schema_of(Point), x=1, y=2))
        self.assertEqual(records[0].value_schema, schema_of(Point))
        self.assertEqual((records[1].value, records[1].value_schema), ({"a": 1}, SCHEMALESS))
        self.assertEqual((records[2].value, records[2].value_schema), ("text", STRING))
        self.assertIsNone(records[3].value)
        self.assertEqual(records[4].value_schema, STRING.as_optional())

    def test_a_bad_record_names_itself_and_leaves_the_batch_as_it_was(self):
        b = SourceBatch()
        b.append(b"k", b"v")
        before = b.finish()
        for bad in [
            dict(value="x", value_schema=INT32),
            dict(value=None, value_schema=STRING),
            dict(value=b"v", headers=[("", b"x")]),
            dict(value=b"v", headers=[("h", object(), STRING)]),
        ]:
            with self.assertRaises(DataError) as e:
                b.add(b"key", **bad)
            self.assertIn("record 1 of the batch", str(e.exception))
            self.assertEqual(b.finish()[:10], before[:10])
        with self.assertRaises(FatalError):
            b.add(b"k", b"v", partition=-1)
        with self.assertRaises(FatalError):
            b.extend_packed(b"abc", [1], [1])
        with self.assertRaises(FatalError):
            SourceBatch().advance({"s": [1]}, {"seq": 1}) or SourceBatch().finish()

    def test_offsets_must_be_maps_of_primitives(self):
        b = SourceBatch()
        b.advance({"s": "a"}, {"pos": {"nested": 1}})
        with self.assertRaises(FatalError):
            b.finish()
        b = SourceBatch()
        b.advance({"s": "a"}, {"pos": float("nan")})
        with self.assertRaises(FatalError):
            b.finish()

    def test_add_record_advances_its_partition(self):
        b = SourceBatch()
        for seq in range(3):
            b.add_record(SourceRecord({"file": "a"}, {"line": seq}, key="k", value=f"v{seq}"))
        b.add_record(SourceRecord({"file": "b"}, {"line": 0}, value=Point(0, 0), topic="t"))
        self.assertEqual(b.offset({"file": "a"}), {"line": 2})
        self.assertEqual(b.finish().positions[1], ('{"file":"b"}', '{"line":0}'))


class SinkBatchTest(unittest.TestCase):
    def test_columns_are_read_into_records(self):
        src = SourceBatch()
        src.add(b"k", b"v", headers=[("h", "x", STRING), ("r", b"raw")], timestamp=5, topic="a", partition=1)
        src.add(None, 7, value_schema=INT32, topic="b")
        c = src.finish()
        columns = SimpleNamespace(
            data=c.data, key_lengths=c.key_lengths, value_lengths=c.value_lengths, topics=["a", "b"],
            topic_indices=[0, 1], partitions=[1, 0], offsets=[10, 20], timestamps=[5, -1],
            header_counts=c.header_counts, header_key_lengths=c.header_key_lengths,
            header_value_lengths=c.header_value_lengths, schemas=c.schemas, key_schemas=c.key_schemas,
            value_schemas=c.value_schemas, header_schemas=c.header_schemas,
        )
        records = SinkBatch(columns)
        self.assertEqual(len(records), 2)
        first, second = records
        self.assertEqual((first.topic, first.partition, first.offset, first.timestamp), ("a", 1, 10, 5))
        self.assertEqual((first.key, first.value, first.value_schema), (b"k", b"v", None))
        self.assertEqual(first.headers, [Header("h", "x", STRING), Header("r", b"raw", None)])
        self.assertEqual((second.topic, second.value, second.value_schema, second.timestamp), ("b", 7, INT32, None))
        self.assertEqual(second.id, "b-0-20")

    def test_a_malformed_batch_is_a_data_error(self):
        columns = SimpleNamespace(
            data=b"\x01", key_lengths=[-1], value_lengths=[4], topics=["t"], topic_indices=[0], partitions=[0],
            offsets=[0], timestamps=[-1], header_counts=[], header_key_lengths=[], header_value_lengths=[],
            schemas=[], key_schemas=[], value_schemas=[-2], header_schemas=[],
        )
        with self.assertRaises(DataError):
            SinkBatch(columns)


if __name__ == "__main__":
    unittest.main()
