"""mypy --strict over the library and the example (config: pyproject.toml).

mypy comes from Debian (python3-mypy; .ci/run installs it): no PyPI here.
"""

from __future__ import annotations

import subprocess
import sys
import unittest

import harness


class TypeCheckTest(unittest.TestCase):
    def test_mypy(self):
        if subprocess.run([sys.executable, "-m", "mypy", "--version"], capture_output=True).returncode != 0:
            harness.unavailable(f"{sys.executable} has no mypy (apt-get install -y python3-mypy)")
        r = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental"], cwd=harness.PYTHON_ROOT,
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("Success: no issues found", r.stdout)


if __name__ == "__main__":
    unittest.main()
