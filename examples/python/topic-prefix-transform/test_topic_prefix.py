"""Native unit tests (plain CPython, no component, no broker):

    PYTHONPATH=../../../guest-sdk/python python3 -m pytest   (or -m unittest, in this directory)
"""

import unittest

from copycat_sdk import BYTES, STRING, Config, ConfigError, Header, struct_schema
from copycat_sdk.transform import TransformRecord, run

from topic_prefix import TopicPrefix
from topic_prefix_checks import prefix_problem


class PrefixTest(unittest.TestCase):
    def test_a_topic_prefix_is_accepted(self):
        self.assertIsNone(prefix_problem("eu-west."))

    def test_empty_and_odd_prefixes_are_refused(self):
        self.assertIn("empty", prefix_problem(""))
        self.assertIn("'/'", prefix_problem("a/b"))


class TopicPrefixTest(unittest.TestCase):
    def test_topics_are_prefixed_and_the_rest_kept(self):
        t = TopicPrefix()
        t.configure(Config({"prefix": "eu-"}))
        row = struct_schema("Row", [("id", STRING)])
        out = run(
            t,
            [
                TransformRecord("orders", b"k", {"id": "1"}, key_schema=BYTES.as_optional(), value_schema=row,
                                partition=1, timestamp=5, headers=[("h", "v", STRING)]),
                TransformRecord("users", None, None, value_schema=BYTES.as_optional()),
            ],
        )
        self.assertEqual([r.topic for r in out], ["eu-orders", "eu-users"])
        self.assertEqual((out[0].key, dict(out[0].value), out[0].value_schema), (b"k", {"id": "1"}, row))
        self.assertEqual((out[0].partition, out[0].timestamp), (1, 5))
        self.assertEqual(out[0].headers, [Header("h", "v", STRING)])
        self.assertIsNone(out[1].value)

    def test_a_bad_prefix_is_a_config_error(self):
        self.assertEqual([p.key for p in TopicPrefix().validate(Config({"prefix": "a/b"}))], ["prefix"])
        with self.assertRaises(ConfigError):
            TopicPrefix().configure(Config({"prefix": ""}))


if __name__ == "__main__":
    unittest.main()
