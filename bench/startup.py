"""Which modules a command imports at start-up, read from `python -X importtime`.

The CLI must not pull in pulumi, boto3 or botocore (seconds of imports for a command that
only reads YAML); the same helper lets the benchmark time "import what planner imports".
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence

HEAVY = ("pulumi", "pulumi_aws", "pulumi_policy", "boto3", "botocore")
_SITE_ONLY = ("sitecustomize", "_distutils_hack")


def imported_modules(args: Sequence[str], env: Mapping[str, str], cwd: str) -> list[str]:
    """Every module `python ARGS` imports, in import order (from `-X importtime`)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        cwd=cwd,
        env=dict(env),
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    names = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":
                names.append(name)
    return names


def heavy(modules: Iterable[str]) -> list[str]:
    """The heavy SDK modules among `modules` (top-level package in HEAVY), sorted."""
    return sorted({m for m in modules if _top(m) in HEAVY})


def third_party(modules: Iterable[str], floor: Iterable[str] = ()) -> list[str]:
    """Top-level public packages of `modules` outside the standard library, planner and `floor`.

    Private top-level modules (`_yaml`) are left out: importing their public package loads
    them. `-X importtime` also lists failed optional imports (`org`, tried by `copy`), so
    only packages that exist count.
    """
    skip = set(sys.stdlib_module_names) | {"planner", *_SITE_ONLY} | set(map(_top, floor))
    tops = set(map(_top, modules)) - skip
    return sorted(t for t in tops if not t.startswith("_") and importlib.util.find_spec(t) is not None)


def _top(module: str) -> str:
    return module.split(".")[0]
