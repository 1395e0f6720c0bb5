"""Unit tests under plain CPython (no component, no broker):

    PYTHONPATH=$COPYCAT_HOME/guest-sdk/python python3 -m unittest
"""

import unittest

from copycat_sdk import Config, SinkRecord

from {{name_snake}} import Plugin, Task


class PluginTest(unittest.TestCase):
    def test_task_configs(self):
        self.assertEqual(len(Plugin().task_configs(Config({}), 3)), 3)

    def test_put_and_flush(self):
        task = Task()
        task.start(Config({"prefix": "> "}))
        task.put([SinkRecord("t", 0, 7, b"k", b"hello"), SinkRecord("t", 0, 8)])
        self.assertEqual(task.pending, 2)
        task.flush({})
        self.assertEqual(task.pending, 0)


if __name__ == "__main__":
    unittest.main()
