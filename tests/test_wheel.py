"""The distribution other repositories install: `pulumi-cluster-planner`, built as a wheel,
installed into a clean virtualenv and run in a folder outside this checkout.

No network: the wheel is built without build isolation (setuptools comes with the test
extra), and the clean virtualenv sees the already-installed dependencies through a `.pth`
line to this checkout's site-packages, so pip resolves the wheel's requirements against
them offline (`--no-index`). The editable install of the checkout is not visible there (its
finder is a `.pth` file that Python only reads in a real site directory), and the test
asserts that `planner` is imported from the clean virtualenv, not from the checkout.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest

import planner
from tests.conftest import ROOT

DIST = "pulumi-cluster-planner"


def test_the_version_is_written_in_one_place_and_the_changelog_names_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["name"] == DIST
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "planner.__version__"}
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## (\S+)", changelog, flags=re.M)
    assert newest and newest.group(1) == planner.__version__, "CHANGELOG.md: the newest entry must be __version__"


@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with only the built wheel installed into it."""
    work = tmp_path_factory.mktemp("wheel")
    # Built from a copy of what the sdist holds, so no build/ or egg-info is left in the checkout
    # and no stale build output can slip into the wheel.
    src = work / "src"
    shutil.copytree(ROOT / "planner", src / "planner", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                            "--disable-pip-version-check", "-q", "-w", str(work / "dist"), str(src)],
                           capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    (wheel,) = (work / "dist").glob("*.whl")
    assert wheel.name == f"pulumi_cluster_planner-{planner.__version__}-py3-none-any.whl"
    env = work / "venv"
    venv.EnvBuilder(with_pip=False).create(env)
    python = env / "bin" / "python"
    site = Path(subprocess.check_output([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                        text=True).strip())
    (site / "_planner_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index",
                              "--disable-pip-version-check", "-q", str(wheel)],
                             capture_output=True, text=True, timeout=120)
    assert install.returncode == 0, install.stderr
    return env


def test_the_wheel_installs_the_planner_command_and_its_data(clean_venv: Path) -> None:
    python = clean_venv / "bin" / "python"
    where = subprocess.check_output([str(python), "-c", "import planner, importlib.metadata as m; "
                                     "print(planner.__file__); print(m.version('pulumi-cluster-planner'))"], text=True,
                                    cwd=clean_venv)  # not the checkout: `python -c` puts the working folder first
    module, version = where.split()
    assert Path(module).is_relative_to(clean_venv), f"planner imported from {module}, not from the wheel"
    assert version == planner.__version__
    assert (Path(module).parent / "data" / "catalogue.yaml").is_file()
    assert (Path(module).parent / "data" / "prices" / "current.yaml").is_file()
    out = subprocess.run([str(clean_venv / "bin" / "planner"), "--version"], capture_output=True, text=True)
    assert out.stdout.strip() == f"planner {planner.__version__}"


def test_planner_plan_in_another_repository(clean_venv: Path, tmp_path: Path) -> None:
    """`planner plan` with no argument reads the stacks of the Pulumi project in the folder it runs in."""
    repo = tmp_path / "infra"
    (repo / "stacks").mkdir(parents=True)
    (repo / "Pulumi.yaml").write_text("name: infra\nruntime: python\nstackConfigDir: stacks\n", encoding="utf-8")
    shutil.copy(ROOT / "stacks" / "Pulumi.p5en-train.yaml", repo / "stacks")
    res = subprocess.run([str(clean_venv / "bin" / "planner"), "plan", "--format", "json"], cwd=repo,
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    (stack,) = json.loads(res.stdout)["stacks"]
    assert stack["stack"] == "p5en-train"
    assert stack["cost"]["total_usd"] == 74046.3  # the documented priced example, from the shipped price book
    broken = repo / "stacks" / "Pulumi.broken.yaml"
    broken.write_text("config:\n  planner:cluster:\n    node_groups: []\n", encoding="utf-8")
    res = subprocess.run([str(clean_venv / "bin" / "planner"), "plan", "stacks/Pulumi.broken.yaml"], cwd=repo,
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith("planner: stacks/Pulumi.broken.yaml")
