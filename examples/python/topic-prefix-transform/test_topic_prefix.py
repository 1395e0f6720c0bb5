"""Unit tests of topic_prefix's checks (plain Python: python3 -m unittest)."""

import unittest

from topic_prefix_checks import prefix_problem


class PrefixTest(unittest.TestCase):
    def test_a_topic_prefix_is_accepted(self):
        self.assertIsNone(prefix_problem("eu-west."))

    def test_empty_and_odd_prefixes_are_refused(self):
        self.assertIn("empty", prefix_problem(""))
        self.assertIn("'/'", prefix_problem("a/b"))


if __name__ == "__main__":
    unittest.main()
