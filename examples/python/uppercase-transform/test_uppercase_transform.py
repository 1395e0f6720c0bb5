"""Native unit tests (plain CPython, no component, no broker):

    PYTHONPATH=../../../guest-sdk/python python3 -m pytest   (or -m unittest, in this directory)
"""

import unittest

from copycat_sdk import BYTES, INT64, STRING, Config, ConfigError, Header, Struct, map_schema, struct_schema
from copycat_sdk.transform import TransformRecord, run

from uppercase_transform import Uppercase

PERSON = struct_schema("Person", [("name", STRING), ("city", STRING), ("age", INT64), ("nick", STRING.as_optional())])


def configured(fields=""):
    t = Uppercase()
    t.configure(Config({"fields": fields}))
    return t


class UppercaseTest(unittest.TestCase):
    def test_describe(self):
        info = Uppercase().describe()
        self.assertEqual((info.name, info.version), ("uppercase-transform", "0.1.0"))
        self.assertEqual(
            info.description, "Upper-cases string values, or the named string fields of a struct or map value"
        )
        self.assertEqual([k.name for k in info.config_def], ["fields"])

    def test_empty_field_names_are_refused(self):
        self.assertEqual([p.key for p in Uppercase().validate(Config({"fields": "a,,b"}))], ["fields"])
        self.assertEqual(Uppercase().validate(Config({"fields": "a,b"})), [])
        self.assertEqual(Uppercase().validate(Config({})), [])
        with self.assertRaises(ConfigError) as e:
            Uppercase().configure(Config({"fields": "a,,b"}))
        self.assertIn("fields", str(e.exception))

    def test_strings_and_bytes(self):
        out = run(
            configured(),
            [
                TransformRecord("t", b"key", "ada", key_schema=BYTES.as_optional(), value_schema=STRING,
                                partition=2, timestamp=7, headers=[("h", b"x", BYTES.as_optional())]),
                TransformRecord("u", None, b"raw bytes 1", value_schema=BYTES.as_optional()),
                TransformRecord("t", None, None, value_schema=STRING.as_optional()),
                TransformRecord("t", None, 42, value_schema=INT64),
            ],
        )
        self.assertEqual([r.value for r in out], ["ADA", b"RAW BYTES 1", None, 42])
        self.assertEqual([r.topic for r in out], ["t", "u", "t", "t"])
        self.assertEqual((out[0].key, out[0].partition, out[0].timestamp), (b"key", 2, 7))
        self.assertEqual(out[0].headers, [Header("h", b"x", BYTES.as_optional())])
        self.assertEqual(out[1].value_schema, BYTES.as_optional())

    def test_only_the_named_fields_of_a_struct(self):
        value = Struct(PERSON, name="ada", city="london", age=36, nick=None)
        [out] = run(configured("name,nick"), [TransformRecord("t", None, value, value_schema=PERSON)])
        self.assertEqual(dict(out.value), {"name": "ADA", "city": "london", "age": 36, "nick": None})
        self.assertEqual(out.value_schema, PERSON)
        [out] = run(configured(), [TransformRecord("t", None, value, value_schema=PERSON)])
        self.assertEqual(dict(out.value), {"name": "ADA", "city": "LONDON", "age": 36, "nick": None})

    def test_maps_with_string_keys(self):
        schema = map_schema(STRING, STRING)
        [out] = run(configured("a"), [TransformRecord("t", None, {"a": "x", "b": "y"}, value_schema=schema)])
        self.assertEqual(out.value, {"a": "X", "b": "y"})


if __name__ == "__main__":
    unittest.main()
