"""The value encoding, byte for byte against wit/connector@0.3.0/batch.wit,
the schema node table, and dataclasses as schemas (plain CPython)."""

import datetime
import decimal
import struct
import unittest
from dataclasses import dataclass, field
from typing import Annotated, Dict, List, Optional

from copycat_sdk import (
    BOOLEAN,
    BYTES,
    DATE,
    FLOAT32,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    INT64,
    STRING,
    TIME,
    TIMESTAMP,
    DataError,
    MapItems,
    Schema,
    Struct,
    Type,
    array_schema,
    connect_schema,
    decimal_schema,
    map_schema,
    schema_of,
    struct_schema,
    wire,
)


def enc(schema, value):
    return bytes(wire.encode(schema, value))


def u32(n):
    return n.to_bytes(4, "little")


class PrimitiveEncodingTest(unittest.TestCase):
    def test_integers_are_little_endian_twos_complement(self):
        self.assertEqual(enc(INT8, -1), b"\xff")
        self.assertEqual(enc(INT16, 258), b"\x02\x01")
        self.assertEqual(enc(INT32, -2), b"\xfe\xff\xff\xff")
        self.assertEqual(enc(INT64, 1), b"\x01" + b"\x00" * 7)
        self.assertEqual(enc(INT64, -(2**63)), b"\x00" * 7 + b"\x80")

    def test_out_of_range_and_wrong_types_are_data_errors(self):
        for schema, value in [(INT8, 128), (INT16, -32769), (INT32, 2**31), (INT64, 2**63), (INT64, True),
                              (INT64, "1"), (STRING, b"x"), (BYTES, "x"), (BOOLEAN, 1), (FLOAT32, 1e39),
                              (FLOAT64, "1.0")]:
            with self.assertRaises(DataError, msg=f"{schema} {value!r}"):
                enc(schema, value)

    def test_floats_booleans_text(self):
        self.assertEqual(enc(FLOAT32, 1.5), struct.pack("<f", 1.5))
        self.assertEqual(enc(FLOAT64, -0.25), struct.pack("<d", -0.25))
        self.assertEqual(enc(FLOAT64, 3), struct.pack("<d", 3.0))
        self.assertEqual(enc(BOOLEAN, True), b"\x01")
        self.assertEqual(enc(BOOLEAN, False), b"\x00")
        self.assertEqual(enc(STRING, "é"), u32(2) + "é".encode())
        self.assertEqual(enc(STRING, ""), u32(0))
        self.assertEqual(enc(BYTES, b"\x00\xff"), u32(2) + b"\x00\xff")

    def test_optional_has_a_presence_byte(self):
        self.assertEqual(enc(INT32.as_optional(), None), b"\x00")
        self.assertEqual(enc(INT32.as_optional(), 1), b"\x01\x01\x00\x00\x00")
        with self.assertRaises(DataError):
            enc(INT32, None)

    def test_a_required_null_takes_the_default(self):
        schema = INT32.with_default(7)
        self.assertEqual(enc(schema, None), b"\x07\x00\x00\x00")
        self.assertEqual(enc(schema.as_optional(), None), b"\x00")

    def test_logical_types(self):
        self.assertEqual(enc(DATE, datetime.date(1970, 1, 2)), b"\x01\x00\x00\x00")
        self.assertEqual(enc(DATE, datetime.date(1969, 12, 31)), b"\xff\xff\xff\xff")
        self.assertEqual(enc(DATE, 19724), (19724).to_bytes(4, "little"))
        self.assertEqual(enc(TIME, datetime.time(0, 0, 1, 500)), (1000).to_bytes(4, "little"))
        self.assertEqual(enc(TIMESTAMP, datetime.datetime(1970, 1, 1, 0, 0, 2)), (2000).to_bytes(8, "little"))
        self.assertEqual(
            enc(TIMESTAMP, datetime.datetime(1970, 1, 1, 1, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))),
            b"\x00" * 8,
        )
        self.assertEqual(DATE.name, "org.apache.kafka.connect.data.Date")
        self.assertEqual((TIMESTAMP.type, TIMESTAMP.version), (Type.INT64, 1))
        with self.assertRaises(DataError):
            enc(DATE, datetime.datetime(2024, 1, 1))

    def test_decimals_are_the_shortest_big_endian_twos_complement(self):
        d2 = decimal_schema(2)
        self.assertEqual(d2.parameters, (("scale", "2"),))
        self.assertEqual(d2.name, "org.apache.kafka.connect.data.Decimal")
        for value, raw in [
            ("0", b"\x00"),
            ("1.27", b"\x7f"),
            ("1.28", b"\x00\x80"),
            ("-1.28", b"\x80"),
            ("-1.29", b"\xff\x7f"),
            ("-123.45", b"\xcf\xc7"),
            ("1.5", b"\x00\x96"),  # 150: fewer places than the scale is exact
        ]:
            self.assertEqual(enc(d2, decimal.Decimal(value)), u32(len(raw)) + raw, value)
        self.assertEqual(enc(d2, 3), u32(2) + (300).to_bytes(2, "big"))
        with self.assertRaises(DataError):
            enc(d2, decimal.Decimal("1.001"))
        with self.assertRaises(DataError):
            enc(d2, decimal.Decimal("NaN"))
        big = 2**100
        self.assertEqual(wire.decode(decimal_schema(0), enc(decimal_schema(0), big)), big)
        huge = decimal.Decimal("-" + "9" * 60 + ".25")
        self.assertEqual(wire.decode(decimal_schema(2), enc(decimal_schema(2), huge)), huge)
        self.assertEqual(wire.decode(decimal_schema(-2), enc(decimal_schema(-2), 1200)), decimal.Decimal("1.2E+3"))

    def test_arrays_maps_structs(self):
        self.assertEqual(enc(array_schema(INT8), [1, -1]), u32(2) + b"\x01\xff")
        self.assertEqual(
            enc(map_schema(STRING, INT8.as_optional()), {"a": None, "b": 2}),
            u32(2) + u32(1) + b"a" + b"\x00" + u32(1) + b"b" + b"\x01\x02",
        )
        point = struct_schema("P", [("x", INT16), ("y", STRING.as_optional())])
        expected = b"\x05\x00" + b"\x01" + u32(1) + b"z"
        self.assertEqual(enc(point, Struct(point, x=5, y="z")), expected)
        self.assertEqual(enc(point, {"x": 5, "y": "z"}), expected)
        with self.assertRaises(DataError) as e:
            enc(point, {"y": "z"})
        self.assertIn("field x", str(e.exception))
        with self.assertRaises(DataError) as e:
            enc(array_schema(point), [{"x": 1}, {"x": "no"}])
        self.assertIn("[1]", str(e.exception))


class SchemalessEncodingTest(unittest.TestCase):
    def test_tags(self):
        d = lambda v: bytes(wire.encode_dynamic(v))  # noqa: E731
        self.assertEqual(d(None), b"\x00")
        self.assertEqual(d(True), b"\x07\x01")
        self.assertEqual(d(5), b"\x04" + (5).to_bytes(8, "little"))
        self.assertEqual(d(0.5), b"\x06" + struct.pack("<d", 0.5))
        self.assertEqual(d("a"), b"\x08" + u32(1) + b"a")
        self.assertEqual(d(b"\x01"), b"\x09" + u32(1) + b"\x01")
        self.assertEqual(d([None]), b"\x0a" + u32(1) + b"\x00")
        self.assertEqual(d({"a": False}), b"\x0b" + u32(1) + b"\x08" + u32(1) + b"a" + b"\x07\x00")
        for bad in [decimal.Decimal(1), Struct(struct_schema("S", [("a", INT8)])), 2**64, object()]:
            with self.assertRaises(DataError):
                d(bad)

    def test_decoding_reads_every_tag(self):
        raw = (
            b"\x0a" + u32(6) + b"\x01\xff" + b"\x02\x01\x00" + b"\x03\x02\x00\x00\x00"
            + b"\x05" + struct.pack("<f", 0.5) + b"\x09" + u32(0) + b"\x0b" + u32(1) + b"\x04" + bytes(8) + b"\x00"
        )
        self.assertEqual(wire.decode_dynamic(raw), [-1, 1, 2, 0.5, b"", {0: None}])
        with self.assertRaises(DataError):
            wire.decode_dynamic(b"\x0c")
        with self.assertRaises(DataError):
            wire.decode_dynamic(b"\x08" + u32(5) + b"ab")


class DecodingTest(unittest.TestCase):
    def test_everything_round_trips(self):
        inner = struct_schema("Inner", [("flag", BOOLEAN), ("f", FLOAT32)])
        schema = struct_schema(
            "com.example.Everything",
            [
                ("i8", INT8), ("i16", INT16), ("i32", INT32), ("i64", INT64), ("f64", FLOAT64),
                ("s", STRING), ("b", BYTES), ("o", STRING.as_optional()), ("arr", array_schema(inner)),
                ("m", map_schema(INT32, array_schema(STRING))), ("day", DATE), ("t", TIME), ("at", TIMESTAMP),
                ("amount", decimal_schema(3)), ("odd_keys", map_schema(array_schema(INT8), INT8)),
            ],
        )
        value = Struct(
            schema, i8=-8, i16=-16, i32=-32, i64=-64, f64=6.25, s="héllo", b=b"\x00", o=None,
            arr=[Struct(inner, flag=True, f=0.5)], m={1: ["x"], 2: []}, day=datetime.date(2024, 2, 29),
            t=datetime.time(23, 59, 59, 999000), at=datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc),
            amount=decimal.Decimal("-1.500"), odd_keys=MapItems([([1, 2], 3)]),
        )
        raw = enc(schema, value)
        self.assertEqual(wire.decode(schema, raw), value)
        self.assertEqual(enc(schema, wire.decode(schema, raw)), raw)

    def test_malformed_input_is_a_data_error(self):
        schema = struct_schema("S", [("s", STRING), ("o", INT8.as_optional())])
        good = enc(schema, {"s": "ab", "o": 1})
        for bad in [good[:-1], good + b"\x00", good[:4] + b"\xff\xfe" + good[6:], good[:-2] + b"\x02\x01"]:
            with self.assertRaises(DataError, msg=repr(bad)):
                wire.decode(schema, bad)

    def test_logical_values_beyond_datetime_stay_numbers(self):
        self.assertEqual(wire.decode(TIMESTAMP, (2**62).to_bytes(8, "little")), 2**62)
        self.assertEqual(wire.decode(TIME, (-1).to_bytes(4, "little", signed=True)), -1)


class SchemaTableTest(unittest.TestCase):
    def test_children_first_and_equal_schemas_shared(self):
        point = struct_schema("P", [("x", INT32), ("y", INT32)])
        line = struct_schema("L", [("a", point), ("b", point), ("tags", array_schema(STRING.as_optional()))])
        table = wire.SchemaTable()
        root = table.add(line)
        self.assertEqual(table.add(line), root)
        self.assertEqual(table.add(struct_schema("P", [("x", INT32), ("y", INT32)])), 1)
        types = [(n.type.value, n.children, n.field_names) for n in table.nodes]
        self.assertEqual(
            types,
            [
                ("int32", [], []),
                ("struct", [0, 0], ["x", "y"]),
                ("string", [], []),
                ("array", [2], []),
                ("struct", [1, 1, 3], ["a", "b", "tags"]),
            ],
        )
        self.assertTrue(table.nodes[2].optional)
        self.assertEqual(wire.read_nodes(table.nodes)[root], line)

    def test_defaults_are_encoded_under_their_node(self):
        table = wire.SchemaTable()
        table.add(STRING.as_optional().with_default("d"))
        table.add(INT16.with_default(3))
        self.assertEqual([n.default for n in table.nodes], [b"\x01" + u32(1) + b"d", b"\x03\x00"])
        back = wire.read_nodes(table.nodes)
        self.assertEqual([s.default for s in back], ["d", 3])
        with self.assertRaises(DataError):
            INT8.with_default(300)

    def test_bad_node_references_are_refused(self):
        table = wire.SchemaTable()
        table.add(array_schema(INT8))
        nodes = list(table.nodes)
        nodes[1] = nodes[1]._replace(children=[5])
        with self.assertRaises(DataError):
            wire.read_nodes(nodes)


@connect_schema(name="com.example.Inner", version=2)
@dataclass
class Inner:
    label: str


@dataclass
class Row:
    id: int
    name: str
    ok: bool
    score: float
    raw: bytes
    note: Optional[str]
    tags: List[str]
    counts: Dict[str, int]
    inner: Inner
    port: Annotated[int, INT32]
    small: Annotated[Optional[int], INT8]
    price: Annotated[decimal.Decimal, decimal_schema(2)]
    day: datetime.date
    at: datetime.datetime
    ratio: float = field(default=0.0, metadata={"schema": FLOAT32})


class DataclassSchemaTest(unittest.TestCase):
    def test_type_hints_map_to_schemas(self):
        s = schema_of(Row)
        self.assertIs(schema_of(Row), s)
        got = {f.name: f.schema for f in s.fields}
        self.assertEqual(list(got), [f for f in Row.__dataclass_fields__])
        self.assertEqual(got["id"], INT64)
        self.assertEqual(got["name"], STRING)
        self.assertEqual(got["ok"], BOOLEAN)
        self.assertEqual(got["score"], FLOAT64)
        self.assertEqual(got["raw"], BYTES)
        self.assertEqual(got["note"], STRING.as_optional())
        self.assertEqual(got["tags"], array_schema(STRING))
        self.assertEqual(got["counts"], map_schema(STRING, INT64))
        self.assertEqual(got["inner"], struct_schema("com.example.Inner", [("label", STRING)], version=2))
        self.assertEqual(got["port"], INT32)
        self.assertEqual(got["small"], INT8.as_optional())
        self.assertEqual(got["price"], decimal_schema(2))
        self.assertEqual(got["day"], DATE)
        self.assertEqual(got["at"], TIMESTAMP)
        self.assertEqual(got["ratio"], FLOAT32)

    def test_a_dataclass_value_encodes_as_its_struct(self):
        row = Row(1, "n", True, 0.5, b"", None, ["a"], {"k": 2}, Inner("i"), 80, None, decimal.Decimal("1.25"),
                  datetime.date(1970, 1, 1), datetime.datetime(1970, 1, 1), 0.25)
        s = schema_of(Row)
        raw = enc(s, row)
        back = wire.decode(s, raw)
        self.assertEqual(back["inner"]["label"], "i")
        self.assertEqual(back["price"], decimal.Decimal("1.25"))
        self.assertEqual(back["at"], datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc))

    def test_unmappable_hints_name_the_field(self):
        @dataclass
        class Bad:
            amount: decimal.Decimal

        with self.assertRaises(DataError) as e:
            schema_of(Bad)
        self.assertIn("Bad.amount", str(e.exception))
        self.assertIn("scale", str(e.exception))


class SchemaTest(unittest.TestCase):
    def test_schemas_are_immutable_values(self):
        a = struct_schema("S", {"x": INT8})
        b = struct_schema("S", [("x", INT8)])
        self.assertEqual(a, b)
        self.assertEqual(hash(a), hash(b))
        self.assertNotEqual(a, a.as_optional())
        self.assertNotEqual(a, struct_schema("T", {"x": INT8}))
        with self.assertRaises(AttributeError):
            a.name = "other"  # type: ignore[misc]
        self.assertIsInstance(a, Schema)
        with self.assertRaises(DataError):
            struct_schema("S", [("x", INT8), ("x", INT16)])

    def test_struct_is_a_mapping_in_field_order(self):
        s = struct_schema("S", [("b", INT8), ("a", INT8)])
        v = Struct(s, a=1)
        self.assertEqual(list(v), ["b", "a"])
        self.assertEqual(dict(v), {"b": None, "a": 1})
        v["b"] = 2
        self.assertEqual(v.values_in_order(), [2, 1])
        with self.assertRaises(KeyError):
            v["c"] = 3


if __name__ == "__main__":
    unittest.main()
