"""Ship the top-level rules/*.toml tables inside the castlint package.

The tables live in rules/ (one obvious place to edit API facts); at build time
they are copied to castlint/rules/ so that `pip install .` installs them.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent


class BuildWithRules(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "castlint" / "rules"
        target.mkdir(parents=True, exist_ok=True)
        for stale in target.glob("*.toml"):  # a table renamed or removed since the last build
            stale.unlink()
        for table in sorted((ROOT / "rules").glob("*.toml")):
            shutil.copy2(table, target / table.name)


setup(cmdclass={"build_py": BuildWithRules})
