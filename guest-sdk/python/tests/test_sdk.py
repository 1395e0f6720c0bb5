"""Native unit tests of copycat_sdk (plain CPython, no component):

    PYTHONPATH=guest-sdk/python python3 -m pytest guest-sdk/python/tests
    (or: PYTHONPATH=guest-sdk/python python3 -m unittest discover -s guest-sdk/python/tests)

Typed encoding: tests/test_wire.py; batches: tests/test_batch.py;
transforms and dynamic connectors: tests/test_transform.py.
"""

import unittest

from copycat_sdk import (
    Config,
    ConfigError,
    ConfigKey,
    Connector,
    DynamicConnector,
    PluginInfo,
    Problem,
    errant,
    export_sink,
    export_source,
    parse,
    problems,
    read_offsets,
)
from copycat_sdk.records import to_bytes

TOPIC = ConfigKey.string("topic", required=True)
STREAMS = ConfigKey.int("streams", default=1, min=1)
COUNT = ConfigKey.long("count", default=100, min=0)
RATE = ConfigKey.double("rate", default=0.5)
EXACT = ConfigKey.boolean("exact", default=False)
FILES = ConfigKey.list("files")
SECRET = ConfigKey.password("secret", check=lambda v: None if len(v) > 3 else "too short")


class ConfigTest(unittest.TestCase):
    def test_defaults_and_types(self):
        c = Config({"topic": "t", "streams": " 3 ", "files": "a, ,b,", "exact": "TRUE"})
        self.assertEqual(
            parse(c, [TOPIC, STREAMS, COUNT, RATE, EXACT, FILES]),
            {"topic": "t", "streams": 3, "count": 100, "rate": 0.5, "exact": True, "files": ["a", "b"]},
        )

    def test_blank_is_absent(self):
        self.assertEqual(STREAMS.parse({"streams": "  "}), 1)
        with self.assertRaises(ConfigError) as e:
            TOPIC.parse({"topic": ""})
        self.assertEqual(e.exception.key, "topic")
        self.assertIn("'topic' is required but is empty", str(e.exception))

    def test_strings_are_kept_as_written(self):
        self.assertEqual(ConfigKey.string("prefix", default="").parse({"prefix": "> "}), "> ")

    def test_errors_name_the_key_and_value(self):
        for value, why in [("abc", "not an integer"), ("0", "at least 1"), ("1_0", "not an integer"),
                           ("2147483648", "out of range"), ("0x10", "not an integer")]:
            with self.assertRaises(ConfigError) as e:
                STREAMS.parse({"streams": value})
            self.assertIn("'streams'", str(e.exception))
            self.assertIn(repr(value), str(e.exception))
            self.assertIn(why, str(e.exception))
        with self.assertRaises(ConfigError):
            RATE.parse({"rate": "nan"})
        with self.assertRaises(ConfigError):
            EXACT.parse({"exact": "yes"})

    def test_password_is_never_echoed(self):
        with self.assertRaises(ConfigError) as e:
            SECRET.parse({"secret": "abc"})
        self.assertNotIn("abc", str(e.exception))
        self.assertIn("too short", str(e.exception))

    def test_one_problem_per_bad_key(self):
        found = problems({"streams": "0", "count": "-5"}, [TOPIC, STREAMS, COUNT])
        self.assertEqual([p.key for p in found], ["topic", "streams", "count"])
        self.assertEqual(found[1], Problem("streams", "invalid value '0': must be at least 1"))

    def test_config_helpers(self):
        c = Config([("a", "1"), ("a", "2")])
        self.assertEqual(c["a"], "2")
        d = c | {"b": 3, "c": True, "l": ["x", "y"]}
        self.assertEqual(dict(d), {"a": "2", "b": "3", "c": "true", "l": "x,y"})
        self.assertEqual(dict(c), {"a": "2"})
        self.assertEqual(d.get_int("b", min=0), 3)
        self.assertIsNone(d.get_int("zz"))
        self.assertEqual(d.get_list("l"), ["x", "y"])
        self.assertEqual(d.require("a"), "2")
        with self.assertRaises(ConfigError):
            d.require("zz")

    def test_default_validate_uses_the_declared_keys(self):
        class C(Connector):
            def describe(self):
                return PluginInfo("c", "0.1.0", "", [TOPIC, STREAMS])

        self.assertEqual([p.key for p in C().validate(Config({"streams": "x"}))], ["topic", "streams"])
        self.assertEqual(C().validate(Config({"topic": "t"})), [])


class NativeFallbackTest(unittest.TestCase):
    def test_host_functions_fall_back(self):
        self.assertEqual(read_offsets([{"stream": "stream-0"}, {"stream": "stream-1"}]), [None, None])

    def test_export_imports_natively(self):
        connector, task = export_source(Connector, object)
        self.assertEqual(connector.__name__, "Connector")
        self.assertEqual(task.__name__, "SourceTask")
        exported = export_sink(Connector, object, dynamic=DynamicConnector)
        self.assertEqual([c.__name__ for c in exported], ["Connector", "SinkTask", "Instance"])

    def test_errant_reports_are_kept(self):
        errant.take_reported()
        errant.report(2, "bad value")
        errant.report(0, "x")
        self.assertEqual(errant.take_reported(), [(2, "bad value"), (0, "x")])
        self.assertEqual(errant.take_reported(), [])
        with self.assertRaises(errant.NoSuchRecord) as e:
            errant.report(-1, "negative")
        self.assertEqual(e.exception.kind, "no-such-record")
        self.assertEqual(errant.take_reported(), [])

    def test_errant_errors(self):
        for error, kind, text in [
            (errant.ReporterUnavailable(), "unavailable", "errors.deadletterqueue.topic.name nor errors.log.enable"),
            (errant.ToleranceExceeded(), "tolerance-exceeded", "errors.tolerance=none"),
            (errant.NoSuchRecord("record 9 of 3"), "no-such-record", "no such record: record 9 of 3"),
        ]:
            self.assertIsInstance(error, errant.ReportError)
            self.assertEqual(error.kind, kind)
            self.assertIn(text, str(error))

    def test_to_bytes(self):
        self.assertEqual(to_bytes("é"), "é".encode())
        self.assertEqual(to_bytes(bytearray(b"x")), b"x")
        self.assertIsNone(to_bytes(None))


if __name__ == "__main__":
    unittest.main()
