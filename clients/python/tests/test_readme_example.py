"""The README's example is the committed example file, and it runs against the real server."""
from __future__ import annotations

import os
import subprocess
import sys
import unittest
from pathlib import Path

from .fixture import fixture_env

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = PACKAGE_ROOT / "examples" / "list_databases.py"


class ReadmeExampleTest(unittest.TestCase):
    def test_the_readme_shows_the_example_file_byte_for_byte(self) -> None:
        readme = (PACKAGE_ROOT / "README.md").read_text(encoding="utf-8")
        self.assertIn("```python\n" + EXAMPLE.read_text(encoding="utf-8") + "```\n", readme)

    def test_the_example_lists_the_monitored_database(self) -> None:
        environment = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT), "DBMON_API_KEY": fixture_env("DBMON_API_KEY")}
        run = subprocess.run([sys.executable, str(EXAMPLE)], env=environment, capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertRegex(run.stdout, rf"(?m)^monitored \w+ {fixture_env('DBMON_TEST_POSTGRES_HOST')}$")
