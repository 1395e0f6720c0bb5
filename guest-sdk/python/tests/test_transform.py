"""Transforms (wit/transform@0.1.0) and dynamic connectors
(wit/dynamic@0.1.0), natively (plain CPython)."""

import unittest
from types import SimpleNamespace

from copycat_sdk import INT32, STRING, ConfigKey, DynamicConnector, Header, dynamic, struct_schema
from copycat_sdk.transform import (
    RecordError,
    Transform,
    TransformInfo,
    TransformRecord,
    _apply,
    export_transform,
    run,
)
from copycat_sdk import wire


class Splitter(Transform):
    """Drops "drop", splits "split" in two, fails on "bad"."""

    def describe(self):
        return TransformInfo("splitter", "0.1.0", "test", [ConfigKey.string("x", required=True)])

    def apply(self, record):
        if record.value == "drop":
            return None
        if record.value == "bad":
            raise RecordError("bad value")
        if record.value == "split":
            return [record.copy(value="a"), record.copy(value="b", topic="other")]
        return record


def batch_of(records):
    """A WIT-shaped record batch of ``records`` (as the host hands one)."""
    out = run(Passthrough(), records)
    from copycat_sdk.transform import _Output, Reader

    o = _Output([], Reader(b"", []))
    for r in out:
        o.push(r, 0)
    return SimpleNamespace(
        data=bytes(o.data), key_lengths=o.key_lengths, value_lengths=o.value_lengths, topics=o.topics,
        topic_indices=o.topic_indices, partitions=o.partitions, timestamps=o.timestamps,
        offsets=[100 + i for i in range(len(o.value_lengths))], header_counts=o.header_counts,
        header_key_lengths=o.header_key_lengths, header_value_lengths=o.header_value_lengths,
        schemas=o.table.nodes, key_schemas=o.key_schemas, value_schemas=o.value_schemas,
        header_schemas=o.header_schemas, origins=[],
    )


class Passthrough(Transform):
    def apply(self, record):
        return record


class TransformTest(unittest.TestCase):
    def test_drop_split_and_origins(self):
        batch = batch_of([TransformRecord("t", None, v, value_schema=STRING) for v in ["x", "drop", "split", "y"]])
        out = _apply(Splitter(), batch)
        self.assertEqual(out.origins, [0, 2, 2, 3])
        self.assertEqual(out.offsets, [100, 102, 102, 103])
        self.assertEqual(out.topics, ["t", "other"])
        self.assertEqual(out.topic_indices, [0, 0, 1, 0])
        self.assertEqual(out.value_schemas, [0, 0, 0, 0])  # the input's node, reused
        self.assertEqual(len(out.table.nodes), 1)

    def test_untouched_records_are_copied_byte_for_byte(self):
        schema = struct_schema("S", [("a", INT32)])
        batch = batch_of([TransformRecord("t", b"k", {"a": 1}, value_schema=schema, headers=[("h", "v", STRING)])])
        out = _apply(Passthrough(), batch)
        self.assertEqual(bytes(out.data), batch.data)
        self.assertEqual((out.value_schemas, out.header_schemas, out.header_counts),
                         (batch.value_schemas, batch.header_schemas, batch.header_counts))

    def test_a_record_error_names_the_record(self):
        with self.assertRaises(RecordError) as e:
            run(Splitter(), [TransformRecord("t", None, v, value_schema=STRING) for v in ["x", "bad"]])
        self.assertIn("record 1: bad value", str(e.exception))

    def test_a_new_schema_is_added_after_the_input_nodes(self):
        class Retype(Transform):
            def apply(self, record):
                record.value = len(record.value)
                record.value_schema = INT32
                record.headers = record.headers + [Header("n", "x", STRING)]
                return record

        batch = batch_of([TransformRecord("t", None, "four", value_schema=STRING)])
        out = _apply(Retype(), batch)
        self.assertEqual([n.type.value for n in out.table.nodes], ["string", "int32"])
        self.assertEqual(out.value_schemas, [1])
        self.assertEqual(out.header_schemas, [0])
        self.assertEqual(wire.decode(INT32, bytes(out.data), 0, 4), 4)

    def test_export_imports_natively(self):
        self.assertEqual(export_transform(Splitter).__name__, "Transformer")
        self.assertEqual([p.key for p in Splitter().validate({})], ["x"])


class DynamicTest(unittest.TestCase):
    def test_context_calls_are_recorded_natively(self):
        dynamic.take_requests()
        dynamic.request_task_reconfiguration()
        dynamic.raise_error("gone")
        self.assertEqual(dynamic.take_requests(), [("reconfigure", ""), ("error", "gone")])
        self.assertEqual(dynamic.take_requests(), [])

    def test_the_base_class_asks_for_an_implementation(self):
        with self.assertRaises(NotImplementedError):
            DynamicConnector().start({})


if __name__ == "__main__":
    unittest.main()
