"""The distribution other repositories install: `pulumi-cluster-planner`, built as a wheel,
installed into a clean virtualenv and run in a folder outside this checkout.

No network: the wheel is built without build isolation (setuptools comes with the test
extra), and the clean virtualenv sees the already-installed dependencies through a `.pth`
line to this checkout's site-packages, so pip resolves the wheel's requirements against
them offline (`--no-index`). The editable install of the checkout is not visible there (its
finder is a `.pth` file that Python only reads in a real site directory), and the test
asserts that `planner` is imported from the clean virtualenv, not from the checkout. The base
and each extra alone get a folder of their own holding only what they require (PyYAML and msgspec copied;
an extra's requirements, transitively, linked from this checkout's site-packages), so a
missing requirement fails there as it would in a user's fresh virtualenv.
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
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built offline from a copy of what the sdist holds."""
    work = tmp_path_factory.mktemp("wheel")
    # Built from a copy of what the sdist holds, so no build/ or egg-info is left in the checkout
    # and no stale build output can slip into the wheel.
    src = work / "src"
    shutil.copytree(ROOT / "planner", src / "planner", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    build = subprocess.run(
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
            str(work / "dist"),
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert build.returncode == 0, build.stderr
    (built,) = (work / "dist").glob("*.whl")
    assert built.name == f"pulumi_cluster_planner-{planner.__version__}-py3-none-any.whl"
    return built


def _venv(where: Path, wheel: Path, deps: Path, extra: str = "") -> Path:
    """A fresh virtualenv that sees only `deps` (a site folder, through a `.pth` line), with the
    wheel (and `extra`) installed offline: pip resolves the requirements against `deps`."""
    venv.EnvBuilder(with_pip=False).create(where)
    python = where / "bin" / "python"
    site = Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
        ).strip()
    )
    (site / "_planner_test_deps.pth").write_text(str(deps) + "\n", encoding="utf-8")
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-index",
            "--disable-pip-version-check",
            "-q",
            f"{wheel}{extra}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert install.returncode == 0, install.stderr
    return where


@pytest.fixture(scope="module")
def clean_venv(wheel: Path) -> Path:
    """A fresh virtualenv with the built wheel and every extra installed into it."""
    return _venv(wheel.parent.parent / "venv", wheel, Path(sysconfig.get_paths()["purelib"]), "[all]")


@pytest.fixture(scope="module")
def base_venv(wheel: Path) -> Path:
    """The base distribution alone: a virtualenv that sees PyYAML, msgspec and nothing else of this checkout's
    packages."""
    import yaml

    deps = wheel.parent.parent / "base-requirements"
    deps.mkdir()
    purelib = Path(yaml.__file__).parent.parent
    for name in (
        "yaml",
        "_yaml",
        *(p.name for p in purelib.glob("pyyaml-*.dist-info")),
        *(p.name for p in purelib.glob("PyYAML-*.dist-info")),
        "msgspec",
        *(p.name for p in purelib.glob("msgspec-*.dist-info")),
    ):
        if (purelib / name).exists():
            shutil.copytree(purelib / name, deps / name)
    return _venv(wheel.parent.parent / "base-venv", wheel, deps)


def _closure(requirements: list[str], extra: str = "") -> set[str]:
    """The installed distributions `requirements` need, transitively (markers honoured for this Python)."""
    import importlib.metadata as md

    from packaging.requirements import Requirement

    names: set[str] = set()
    todo = [(r, extra) for r in requirements]
    while todo:
        text, wanted = todo.pop()
        req = Requirement(text)
        if req.marker and not req.marker.evaluate({"extra": wanted}):
            continue
        name = req.name.lower().replace("_", "-")
        if name in names or name == DIST:
            continue
        names.add(name)
        todo += [(r, e) for r in md.requires(name) or [] for e in ("", *req.extras)]
    return names


def _extra_venv(wheel: Path, extra: str) -> Path:
    """The wheel with one extra, in a virtualenv that sees only what that extra needs: the extra's
    requirements and theirs, linked (not copied) from this checkout's site-packages into a folder of
    their own; nothing else installed here is importable there."""
    import importlib.metadata as md

    deps = wheel.parent.parent / f"{extra}-only"
    deps.mkdir()
    mine = [r for r in md.requires(DIST) or [] if "extra ==" not in r or f'extra == "{extra}"' in r]
    for name in _closure(mine, extra):
        dist = md.distribution(name)
        tops = {Path(str(f)).parts[0] for f in dist.files or () if not str(f).startswith("..")}
        for top in tops:
            source = Path(str(dist.locate_file(top)))
            if source.exists() and not (deps / top).exists():
                (deps / top).symlink_to(source)
    return _venv(wheel.parent.parent / f"{extra}-venv", wheel, deps, f"[{extra}]")


@pytest.mark.parametrize(
    "extra,present,absent",
    [
        ("pulumi", ("pulumi", "pulumi_aws", "pulumi_policy"), ("boto3", "botocore")),
        ("aws", ("boto3", "botocore"), ("pulumi", "pulumi_aws", "pulumi_policy")),
    ],
)
def test_each_extra_alone_in_a_clean_venv(
    wheel: Path, tmp_path: Path, extra: str, present: tuple[str, ...], absent: tuple[str, ...]
) -> None:
    """Each extra installed alone brings what its commands need and nothing of the other's."""
    where = _extra_venv(wheel, extra)
    python = where / "bin" / "python"
    probe = "import importlib.util as u; print(' '.join(m for m in %r if u.find_spec(m)))" % (present + absent,)
    assert subprocess.check_output([str(python), "-c", probe], text=True, cwd=tmp_path).split() == list(present)
    shutil.copytree(ROOT / "stacks", tmp_path / "stacks")
    if extra == "pulumi":  # a program runs (offline, under mocks)
        args: tuple[str, ...] = ("plan", "--program", str(ROOT), "--stack", "trn2-dev", "--format", "json")
    else:  # preflight gets as far as asking for credentials (none here: nothing is called)
        args = ("preflight", "stacks")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "AWS_EC2_METADATA_DISABLED": "true"}
    res = subprocess.run(
        [str(where / "bin" / "planner"), *args], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env
    )
    assert "extra" not in res.stderr, res.stderr
    if extra == "pulumi":
        assert res.returncode == 0, res.stderr
        assert [s["stack"] for s in json.loads(res.stdout)["stacks"]] == ["trn2-dev"]
    else:
        assert res.returncode == 2 and "no AWS credentials found" in res.stderr, res.stderr


def test_the_wheel_installs_the_planner_command_and_its_data(clean_venv: Path) -> None:
    python = clean_venv / "bin" / "python"
    where = subprocess.check_output(
        [
            str(python),
            "-c",
            "import planner, importlib.metadata as m; "
            "print(planner.__file__); print(m.version('pulumi-cluster-planner'))",
        ],
        text=True,
        cwd=clean_venv,
    )  # not the checkout: `python -c` puts the working folder first
    module, version = where.split()
    assert Path(module).is_relative_to(clean_venv), f"planner imported from {module}, not from the wheel"
    assert version == planner.__version__
    assert (Path(module).parent / "data" / "catalogue.yaml").is_file()
    assert (Path(module).parent / "data" / "prices" / "current.yaml").is_file()
    # the fast form of the shipped data ships too (without it every start parses the YAML)
    assert (Path(module).parent / "data" / "prebuilt" / "prices" / "current.yaml.json").is_file()
    out = subprocess.run([str(clean_venv / "bin" / "planner"), "--version"], capture_output=True, text=True)
    assert out.stdout.strip() == f"planner {planner.__version__}"


def test_planner_plan_in_another_repository(clean_venv: Path, tmp_path: Path) -> None:
    """`planner plan` with no argument reads the stacks of the Pulumi project in the folder it runs in."""
    repo = tmp_path / "infra"
    (repo / "stacks").mkdir(parents=True)
    (repo / "Pulumi.yaml").write_text("name: infra\nruntime: python\nstackConfigDir: stacks\n", encoding="utf-8")
    shutil.copy(ROOT / "stacks" / "Pulumi.p5en-train.yaml", repo / "stacks")
    res = subprocess.run(
        [str(clean_venv / "bin" / "planner"), "plan", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    (stack,) = json.loads(res.stdout)["stacks"]
    assert stack["stack"] == "p5en-train"
    # the shipped price book's figure, as the checkout plans it (a price update changes the book only)
    from tests.conftest import run_cli

    planned = json.loads(run_cli("plan", str(ROOT / "stacks" / "Pulumi.p5en-train.yaml"), "--format", "json").out)
    assert stack["cost"]["total_usd"] == planned["stacks"][0]["cost"]["total_usd"] > 0
    broken = repo / "stacks" / "Pulumi.broken.yaml"
    broken.write_text("config:\n  planner:cluster:\n    node_groups: []\n", encoding="utf-8")
    res = subprocess.run(
        [str(clean_venv / "bin" / "planner"), "plan", "stacks/Pulumi.broken.yaml"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 2 and "nothing planned" in res.stdout  # the report of the problems, no plan
    assert res.stderr.startswith("planner: stacks/Pulumi.broken.yaml")


HEAVY = ("pulumi", "pulumi_aws", "pulumi_policy", "boto3", "botocore")


def test_the_base_wheel_needs_nothing_but_pyyaml_and_msgspec_and_plans_the_bundled_stacks(
    base_venv: Path, tmp_path: Path
) -> None:
    python = base_venv / "bin" / "python"
    probe = "import importlib.util as u; print(' '.join(m for m in %r if u.find_spec(m)))" % (HEAVY,)
    assert subprocess.check_output([str(python), "-c", probe], text=True, cwd=tmp_path).strip() == ""
    shutil.copytree(ROOT / "stacks", tmp_path / "stacks")
    res = subprocess.run(
        [str(base_venv / "bin" / "planner"), "plan", "stacks", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    assert [s["stack"] for s in json.loads(res.stdout)["stacks"]] == ["p5en-train", "trn2-dev", "ultraserver-prod"]
    # what needs an extra says which, in one line, exit 2
    for args, extra in (
        (("plan", "--program", ".", "--stack", "dev"), "pulumi"),
        (("preflight", "stacks"), "aws"),
        (("plan", "stacks", "--live-prices"), "aws"),
        (("prices", "refresh", "-o", "book.yaml"), "aws"),
        (("capacity", "--instance-type", "p5en.48xlarge", "--count", "2", "--hours", "24"), "aws"),
        (
            ("compare", "--parameters", "7e9", "--tokens", "1e11", "--mfu", "0.4", "--instances", "8", "--capacity"),
            "aws",
        ),
    ):
        res = subprocess.run(
            [str(base_venv / "bin" / "planner"), *args], cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert res.returncode == 2 and res.stdout == "", (args, res.stdout)
        (line,) = res.stderr.strip().splitlines()
        assert f"needs the [{extra}] extra" in line and f"pip install 'pulumi-cluster-planner[{extra}]'" in line, line


@pytest.mark.parametrize(
    "extra,modules",
    [
        ("pulumi", ("pulumi", "pulumi_aws", "pulumi_policy")),
        ("aws", ("boto3",)),
        ("all", ("pulumi", "pulumi_aws", "pulumi_policy", "boto3")),
    ],
)
def test_each_extra_names_what_it_brings(clean_venv: Path, extra: str, modules: tuple[str, ...]) -> None:
    """The installed wheel's metadata: each extra requires its packages; the base requires PyYAML and msgspec only."""
    python = clean_venv / "bin" / "python"
    code = "import importlib.metadata as m, json; print(json.dumps(m.requires('pulumi-cluster-planner')))"
    requires = json.loads(subprocess.check_output([str(python), "-c", code], text=True, cwd=clean_venv))
    base = [r for r in requires if "extra ==" not in r]
    assert [re.split(r"[<>=;\[ ]", r)[0].lower() for r in base] == ["pyyaml", "msgspec"]
    mine = [r for r in requires if f'extra == "{extra}"' in r]
    names = {re.split(r"[<>=;\[ ]", r)[0].lower().replace("-", "_") for r in mine}
    if extra == "all":
        assert any("pulumi-cluster-planner[" in r for r in mine)
    else:
        assert names == set(modules)
    probe = "import importlib.util as u; print(' '.join(m for m in %r if u.find_spec(m) is None))" % (modules,)
    assert subprocess.check_output([str(python), "-c", probe], text=True, cwd=clean_venv).strip() == ""


def test_the_full_install_runs_a_program(clean_venv: Path) -> None:
    """With [pulumi], `plan --program` runs (the bundled program, planner's components)."""
    res = subprocess.run(
        [
            str(clean_venv / "bin" / "planner"),
            "plan",
            "--program",
            str(ROOT),
            "--stack",
            "trn2-dev",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=clean_venv,
    )
    assert res.returncode == 0, res.stderr
    assert [s["stack"] for s in json.loads(res.stdout)["stacks"]] == ["trn2-dev"]
