"""The project layout is a contract (issue 2): what Pulumi, pip, make and CI read from it.

Read as text, never run: `make` would re-create `.venv`, and Pulumi is not installed here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT


def _makefile_rules() -> dict[str, tuple[list[str], list[str]]]:
    """target -> (prerequisites, recipe lines)."""
    rules: dict[str, tuple[list[str], list[str]]] = {}
    current = None
    for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Za-z$()_./-]+):(?!=)\s*(.*)$", line)
        if m:
            current = m.group(1)
            rules[current] = (m.group(2).split(), [])
        elif line.startswith("\t") and current:
            rules[current][1].append(line.strip())
        elif line.strip() and not line.startswith("#"):
            current = None
    return rules


def test_pulumi_project_runs_the_program_with_the_stacks() -> None:
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text(encoding="utf-8"))
    assert project["name"] == "planner"  # so the config key is `planner:cluster`
    assert project["runtime"] == {"name": "python", "options": {"toolchain": "pip", "virtualenv": ".venv"}}
    assert project["stackConfigDir"] == "stacks"
    assert (ROOT / project["main"] / "__main__.py").is_file()
    # pip toolchain installs planner with what the program (the components) needs
    assert "-e .[pulumi]" in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()


def test_pyproject_declares_the_package_script_and_test_extra() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    # `planner` on PyPI is another project: the distribution has its own name, the import package and CLI stay `planner`
    assert meta["name"] == "pulumi-cluster-planner" and meta["requires-python"] == ">=3.11"
    assert meta["scripts"] == {"planner": "planner.cli:main"}
    runtime = {re.split(r"[<>=\[]", d)[0].lower() for d in meta["dependencies"]}
    assert runtime == {"pyyaml", "msgspec"}  # the light install: stack files need nothing else
    extra = {
        name: {re.split(r"[<>=\[]", d)[0].lower() for d in meta["optional-dependencies"][name]}
        for name in ("pulumi", "aws", "all")
    }
    assert extra["pulumi"] == {"pulumi", "pulumi-aws", "pulumi-policy"} and extra["aws"] == {"boto3"}
    assert meta["optional-dependencies"]["all"] == ["pulumi-cluster-planner[pulumi,aws]"]
    test = {re.split(r"[<>=\[]", d)[0].lower() for d in meta["optional-dependencies"]["test"]}
    assert {"pytest", "moto"} <= test
    assert any(d.startswith("moto[") and "server" in d.split("]")[0] for d in meta["optional-dependencies"]["test"])
    # preflight against moto_server needs moto's server and boto3, not the test tools
    moto = meta["optional-dependencies"]["moto"]
    assert moto[0] == "pulumi-cluster-planner[aws]" and any(d.startswith("moto[") and "server" in d for d in moto)
    assert not {"pytest", "mypy", "ruff"} & {re.split(r"[<>=\[]", d)[0].lower() for d in moto}
    docs = {re.split(r"[<>=\[]", d)[0].lower() for d in meta["optional-dependencies"]["docs"]}
    assert {"mkdocs", "mkdocs-material"} <= docs
    extras = meta["optional-dependencies"]
    assert all(
        ">=" in d for d in meta["dependencies"] + extras["test"] + extras["docs"] + extras["pulumi"] + extras["aws"]
    ), "lower bounds"


def test_makefile_targets_set_up_first() -> None:
    rules = _makefile_rules()
    for target in ("plan", "test", "bench"):
        assert "setup" in rules[target][0], f"make {target} must depend on setup"
    assert any("planner plan" in r for r in rules["plan"][1])
    assert any("pytest" in r for r in rules["test"][1])
    assert any("-m bench" in r for r in rules["bench"][1])
    stamp = rules["setup"][0]
    assert stamp and stamp[0] in rules, "setup goes through a stamp file, so it is idempotent"
    recipe = " ".join(rules[stamp[0]][1])
    # exactly the lock, with every extra (make test runs programs, the pack and preflight; CI builds the docs),
    # after checking the lock still matches pyproject.toml
    assert "lock --check" in recipe and "sync --locked --all-extras" in recipe
    assert recipe.index("lock --check") < recipe.index("sync --locked")
    assert "pyproject.toml" in rules[stamp[0]][0] and "uv.lock" in rules[stamp[0]][0]


def test_the_lock_pins_every_package_with_hashes_for_every_supported_python() -> None:
    """uv.lock: one exact version per package (per Python where markers differ), each file with its
    sha256, resolved for requires-python (3.11 to 3.13 in CI); uv itself pinned with hashes too."""
    lock = tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))
    assert lock["requires-python"] == ">=3.11"
    packages = [p for p in lock["package"] if p["name"] != "pulumi-cluster-planner"]
    assert len(packages) > 50
    for p in packages:
        files = p.get("wheels", []) + ([p["sdist"]] if "sdist" in p else [])
        assert p["version"] and files, p["name"]
        assert all(f["hash"].startswith("sha256:") for f in files), p["name"]
    names = {p["name"] for p in packages}
    assert {"moto", "botocore", "pulumi", "pytest", "pytest-xdist", "mkdocs-material"} <= names
    uv = (ROOT / "tools" / "uv-requirements.txt").read_text(encoding="utf-8")
    assert re.search(r"^uv==\d+\.\d+\.\d+ \\$", uv, re.M) and uv.count("--hash=sha256:") >= 10


def test_the_lock_matches_pyproject() -> None:
    """What `make setup` checks before installing: a pyproject.toml change without `make lock` fails."""
    uv = ROOT / ".uv" / "bin" / "uv"
    if not uv.exists():
        pytest.skip("uv is installed by make setup (.uv/bin/uv)")
    proc = subprocess.run([str(uv), "lock", "--check", "--offline"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_make_setup_refuses_a_lock_that_pyproject_no_longer_matches(tmp_path: Path) -> None:
    """A dependency range changed without `make lock`: setup names the command and installs nothing."""
    uv = ROOT / ".uv" / "bin" / "uv"
    if not uv.exists():
        pytest.skip("uv is installed by make setup (.uv/bin/uv)")
    for name in ("Makefile", "uv.lock", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "uv-requirements.txt", tmp_path / "tools" / "uv-requirements.txt")
    (tmp_path / ".uv").symlink_to(ROOT / ".uv")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(pyproject.replace('"pyyaml>=6.0.4"', '"pyyaml>=6.0.1"'), encoding="utf-8")
    (tmp_path / "planner").mkdir()
    shutil.copy(ROOT / "planner" / "__init__.py", tmp_path / "planner" / "__init__.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    proc = subprocess.run(["make", "-s", "setup"], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "make setup: uv.lock does not match pyproject.toml; run 'make lock' and commit uv.lock" in proc.stderr
    assert not (tmp_path / ".venv").exists()


def test_make_test_lints_formats_and_type_checks_before_the_tests() -> None:
    """ruff, mypy and lint-imports run before pytest, from the venv the test extra fills."""
    recipe = _makefile_rules()["test"][1]
    tools = [r.split()[0].rsplit("/", 1)[-1] + ("" if len(r.split()) < 2 else " " + r.split()[1]) for r in recipe]
    assert tools == ["ruff check", "ruff format", "mypy", "lint-imports", "python -m"] and "pytest" in recipe[-1]
    assert all(r.startswith("$(BIN)/") for r in recipe)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    test = {re.split(r"[<>=\[]", d)[0].lower() for d in config["project"]["optional-dependencies"]["test"]}
    assert {"ruff", "mypy", "types-pyyaml"} <= test
    mypy = config["tool"]["mypy"]
    # strict on all of planner/, and no section of ours loosens it
    assert mypy["strict"] is True and mypy["files"] == ["planner"]
    overrides = mypy.get("overrides", [])
    assert not [o for o in overrides if any(m == "planner" or m.startswith("planner.") for m in o["module"])]
    # only libraries without type hints (and no stubs in the test extra) are Any
    untyped = {m for o in overrides if o.get("ignore_missing_imports") for m in o["module"]}
    assert {m.removesuffix(".*") for m in untyped} == {"boto3", "botocore", "moto", "google.protobuf"}


def test_mypy_reads_every_pulumi_aws_service_the_components_build() -> None:
    """mypy skips the pulumi_aws services planner does not use (following all 3,000 modules takes
    it over a minute); a component building a resource of a service left out would get Any."""
    import ast

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    followed = {
        m.removeprefix("pulumi_aws.").removesuffix(".*")
        for o in config["tool"]["mypy"]["overrides"]
        if o.get("follow_imports") == "normal"
        for m in o["module"]
    }
    used = set()
    for path in (ROOT / "planner").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "import pulumi_aws as aws" not in text:
            continue
        for node in ast.walk(ast.parse(text)):  # `aws.ec2.LaunchTemplate`: the service is `ec2`
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
                if isinstance(node.value.value, ast.Name) and node.value.value.id == "aws":
                    used.add(node.value.attr)
    assert {"ec2", "autoscaling", "fsx"} <= used <= followed, used - followed


def test_ci_runs_make_test() -> None:
    run = ROOT / ".ci" / "run"
    assert os.access(run, os.X_OK)
    lines = [line for line in run.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    assert lines[-1] == "make test"


def test_readme_quick_start_is_make_plan_and_make_test() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    first_block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in first_block.splitlines() if line.strip()]
    assert commands == ["make plan", "make test"]


def test_make_docs_generates_the_reference_then_builds_strictly() -> None:
    prerequisites, recipe = _makefile_rules()["docs"]
    assert "setup" in prerequisites
    assert [r.split()[-1] for r in recipe if "gen_reference" in r] == ["tools.gen_reference"]
    assert recipe[-1].endswith("mkdocs build --strict")
    assert (ROOT / "tools" / "gen_reference.py").is_file() and (ROOT / "mkdocs.yml").is_file()


def _layers() -> list[list[str]]:
    """The layers of pyproject's import contracts, as lists of packages: the outer layers, then each
    part of the core as a layer of its own (the core's own contract orders them)."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"][
        "contracts"
    ]
    outer = next(c for c in contracts if "containers" not in c and c["type"] == "layers")["layers"]
    core = next(c for c in contracts if c.get("containers") == ["planner.core"])["layers"]
    out = [[p.strip() for p in layer.split(":")] for layer in outer if layer != "planner.core"]
    return out + [[f"planner.core.{part}"] for part in core]


def test_no_two_modules_of_one_name_in_different_layers() -> None:
    """A module's name says what it holds: `compare.py` is the command, the ranking is
    `price_performance.py`, the document's section `compare_section.py`. Within one layer (the
    adapters' `args.py` of the components and of the provider) a name may repeat."""
    where: dict[str, set[int]] = {}
    for i, layer in enumerate(_layers()):
        for package in layer:
            base = ROOT / package.replace(".", "/")
            files = sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]
            for f in files:
                if f.exists() and f.name not in ("__init__.py", "__main__.py"):
                    where.setdefault(f.stem, set()).add(i)
    shared = {name: layers for name, layers in where.items() if len(layers) > 1}
    assert not shared, f"module names in more than one layer: {sorted(shared)}"


def test_records_are_structs_not_dataclasses() -> None:
    """docs/design.md, "Records": a dataclass compiles its generated methods when its module is imported, which
    cost `planner plan` 48 ms at every start for 94 types; every record of planner is a `msgspec.Struct`. A
    dataclass added back would slow start-up only where `make bench` is run, so it fails here."""
    import ast

    found = []
    for path in sorted((ROOT / "planner").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any("dataclass" in ast.unparse(d) for d in node.decorator_list):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
            if isinstance(node, ast.ImportFrom) and node.module == "dataclasses":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} from dataclasses import ...")
    assert found == [], found
