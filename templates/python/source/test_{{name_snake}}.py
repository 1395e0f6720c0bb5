"""Unit tests under plain CPython (no component, no broker):

    PYTHONPATH=$COPYCAT_HOME/guest-sdk/python python3 -m unittest
"""

import unittest
from unittest import mock

from copycat_sdk import Config, ConfigError

from {{name_snake}} import Plugin, Task


def started(offsets=None, **config):
    task = Task()
    with mock.patch.object(Task, "read_offsets", staticmethod(lambda partitions: offsets or {})):
        task.start(Config({"topic": "t", **config}))
    return task


class PluginTest(unittest.TestCase):
    def test_validate(self):
        self.assertEqual(sorted(p.key for p in Plugin().validate(Config({"streams": "0"}))), ["streams", "topic"])

    def test_task_configs(self):
        configs = Plugin().task_configs(Config({"topic": "t", "streams": "3"}), 2)
        self.assertEqual([c["{{name}}.streams.assigned"] for c in configs], ["0,2", "1"])

    def test_poll_and_resume(self):
        task = started({"stream-0": "1"}, count="3")
        self.assertEqual([r.key for r in task.poll(10)], ["stream-0:2"])
        self.assertEqual(task.poll(10), [])

    def test_bad_config(self):
        with self.assertRaises(ConfigError):
            started(count="-1")


if __name__ == "__main__":
    unittest.main()
