"""Native unit tests (plain CPython, no component, no broker):

    PYTHONPATH=../../../guest-sdk/python python3 -m unittest   (in this directory)
"""

import unittest
from unittest import mock

from copycat_sdk import Config, ConfigError

from counter_source import CounterSource, CounterTask


def started(offsets=None, **config):
    task = CounterTask()
    with mock.patch.object(CounterTask, "read_offsets", staticmethod(lambda ps: offsets or {})):
        task.start(Config({"topic": "t", **config}))
    return task


class CounterSourceTest(unittest.TestCase):
    def test_validate_reports_each_bad_key(self):
        found = CounterSource().validate(Config({"streams": "0", "count": "-5"}))
        self.assertEqual(sorted(p.key for p in found), ["count", "streams", "topic"])
        self.assertEqual(CounterSource().validate(Config({"topic": "t"})), [])

    def test_task_configs_spread_the_streams(self):
        configs = CounterSource().task_configs(Config({"topic": "t", "streams": "5"}), 2)
        self.assertEqual([c["counter.streams.assigned"] for c in configs], ["0,2,4", "1,3"])
        self.assertEqual(configs[0]["topic"], "t")
        self.assertEqual(len(CounterSource().task_configs(Config({"topic": "t", "streams": "2"}), 8)), 2)

    def test_poll_round_robin_until_count(self):
        task = started(streams="2", count="2")
        records = task.poll(3) + task.poll(10)
        self.assertEqual([r.key for r in records], ["stream-0:0", "stream-1:0", "stream-0:1", "stream-1:1"])
        self.assertEqual((records[2].source_partition, records[2].source_offset, records[2].value),
                         ("stream-0", "1", "1"))
        self.assertEqual(task.poll(10), [])

    def test_resumes_after_committed_offsets(self):
        task = started({"stream-1": "4"}, streams="3", count="6", **{"counter.streams.assigned": "1,2"})
        self.assertEqual([r.key for r in task.poll(3)], ["stream-1:5", "stream-2:0", "stream-2:1"])

    def test_unbounded(self):
        task = started(count="0")
        self.assertEqual(len(task.poll(1000)), 1000)

    def test_bad_config_names_the_key(self):
        with self.assertRaises(ConfigError) as e:
            started(streams="abc")
        self.assertIn("streams", str(e.exception))


if __name__ == "__main__":
    unittest.main()
