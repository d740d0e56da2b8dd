"""Start-up as users get it: the wheel installed into a fresh virtualenv, bytecode compiled.

The development virtualenv imports planner through the editable install's finder, which
`python -c pass` there pays for too (about 25 ms of `pathlib` and friends at every start):
both the floor and planner look slower than a user's, and their ratio smaller. Here the
wheel is built offline from a copy of the sources (as tests/test_wheel.py does: no build/ left
in the checkout), installed with `--no-deps` into a virtualenv that has nothing else, PyYAML and msgspec
(the requirements of `planner plan`) copied beside it, and run with the environment a user
has: no PYTHONDONTWRITEBYTECODE, no PYTHONPYCACHEPREFIX, no PYTHONPATH, from a folder outside
the checkout. pip compiles the wheel's bytecode when it installs; the warm-up run of
`timing.side_by_side` writes PyYAML's and msgspec's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from collections.abc import Mapping, Sequence
from pathlib import Path

from bench.timing import ROOT, WORK

WHEEL_WORK = WORK / "wheel"
_SCRUBBED = ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")


def user_environment() -> dict[str, str]:
    """This process's environment without what would change how Python finds or caches modules."""
    return {k: v for k, v in os.environ.items() if k not in _SCRUBBED}


def install(work: Path = WHEEL_WORK) -> Path:
    """A fresh virtualenv at `work`/venv with planner's wheel, PyYAML and msgspec; its folder."""
    if work.exists():
        shutil.rmtree(work)
    src, dist, where = work / "src", work / "dist", work / "venv"
    shutil.copytree(ROOT / "planner", src / "planner", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--disable-pip-version-check",
            "-q",
            "-w",
            str(dist),
            str(src),
        ]
    )
    (wheel,) = dist.glob("*.whl")
    venv.EnvBuilder(with_pip=False).create(where)
    python = where / "bin" / "python"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--disable-pip-version-check",
            "-q",
            str(wheel),
        ]
    )
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"]).strip())
    _copy_requirements(site)
    imported = _run(
        [str(python), "-c", "import planner, yaml, msgspec; print(planner.__file__); print(yaml.__with_libyaml__)"],
        cwd=work,
    ).split()
    if not imported[0].startswith(str(where)) or imported[1] != "True":
        raise RuntimeError(f"the fresh virtualenv imports planner from {imported[0]} (libyaml: {imported[1]})")
    return where


def _copy_requirements(site: Path) -> None:
    """PyYAML and msgspec as installed here (their C extensions included), copied into `site`: the
    requirements of `planner plan`, without pip reaching an index."""
    import msgspec
    import yaml

    for module, names, dist in ((yaml, ("yaml", "_yaml"), "pyyaml-"), (msgspec, ("msgspec",), "msgspec-")):
        purelib = Path(module.__file__ or "").parent.parent
        for path in sorted(purelib.iterdir()):
            if path.name in names or path.name.lower().startswith(dist):
                shutil.copytree(path, site / path.name, ignore=shutil.ignore_patterns("__pycache__"))


# what any program that reads YAML and takes arguments pays before its own code: PyYAML, and the
# standard-library modules `planner plan` cannot do without (argparse; dataclasses and typing,
# which its model is written in)
DEPENDENCIES = "import yaml, argparse, dataclasses, typing"
# the same without PyYAML: what the standard library alone costs a typed argparse command line
STANDARD_LIBRARY = "import argparse, dataclasses, typing"


def commands(where: Path, stacks: Path) -> dict[str, list[str]]:
    """The floor, what planner's imports cost before planner's own code, and the bundled-stack plan,
    in the fresh virtualenv (the `planner` script users run)."""
    python = str(where / "bin" / "python")
    return {
        "wheel-floor": [python, "-c", "pass"],
        "wheel-yaml": [python, "-c", "import yaml"],
        "wheel-stdlib": [python, "-c", STANDARD_LIBRARY],
        "wheel-dependencies": [python, "-c", DEPENDENCIES],
        "wheel-bundled": [str(where / "bin" / "planner"), "plan", str(stacks)],
        "wheel-bundled-json": [str(where / "bin" / "planner"), "plan", str(stacks), "--format", "json"],
    }


def _run(cmd: Sequence[str], cwd: Path | None = None, env: Mapping[str, str] | None = None) -> str:
    proc = subprocess.run(
        list(cmd),
        cwd=cwd,
        env=dict(env or user_environment()),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr.strip()[-500:]}")
    return proc.stdout
