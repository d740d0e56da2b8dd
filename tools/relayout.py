"""Move planner's modules into the folders of the house, and rewrite every reference to them.

Issue 23, item 4: the layers of docs/design.md become folders (`planner/core/`, `planner/runtime/`,
`planner/readback/`; the adapters and the entry points stay where they are), and modules get names
that say what they hold. The moves are a table (`FILE_MOVES`, `DIR_MOVES`); everything else is
derived from it, so the same run works on any branch that still has the old layout, new files
included (a module another branch added under `planner/report/` moves with its folder, and a file
importing `planner.findings` comes out importing `planner.core.model.findings`).

    python -m tools.relayout            # move and rewrite (from the repository root)
    python -m tools.relayout --check    # print what it would do, change nothing; exit 1 if anything

Idempotent: a second run finds nothing to move and nothing to rewrite. What it does, in order:

1. `git mv` every tracked file the tables map (skipping those already moved), creates the new
   packages' `__init__.py`, removes the old folders left empty;
2. rewrites references in every tracked text file (except CHANGELOG.md, whose released entries
   name the modules as they were, `tests/corpus/`, translated public programs kept as written,
   and this file): `from planner[.x] import y [as z]` (a moved module imported by name keeps its
   binding: `from planner import catalogue` becomes
   `from planner.core.catalogue import instance_types as catalogue`), dotted names anywhere
   (`import planner.x`, `mock.patch("planner.x.y")`, `-m planner.x`, `"planner.rules:RULES"`,
   `f"planner.report.{name}"`, docs), slash paths (`planner/x.py`, `planner/report/`,
   `Pulumi.yaml`'s `main: planner/program`) and path joins (`ROOT / "planner" / "program"`);
3. writes pyproject.toml's import-linter contracts from `LAYERS` and `CORE_PARTS` (and tidies
   [tool.mypy] `files`: the core's modules are now `planner/core`);
4. reruns the generators whose input it may have touched (`REGENERATE`).

`planner.readback` is both an old module (readback.py) and the new read-back package: its old
meaning is rewritten only while `planner/readback.py` still exists when the run starts.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Folders that move whole, every file in them (today's and those other branches add).
DIR_MOVES: dict[str, str] = {
    "planner/report": "planner/core/render",
    "planner/rules": "planner/core/rules",
    "planner/cost": "planner/core/cost",
    "planner/program": "planner/pulumi_program",
}

# Single files; an entry here wins over its folder's move (report/text.py).
FILE_MOVES: dict[str, str] = {
    # core: the bottom, text helpers every part and every renderer uses
    "planner/report/text.py": "planner/core/text.py",
    # core/reading: how user files are read (bounded, YAML with lines, field tables) and what is wrong with them
    "planner/errors.py": "planner/core/reading/problems.py",
    "planner/fileio.py": "planner/core/reading/bounded_files.py",
    "planner/yamlload.py": "planner/core/reading/yaml_lines.py",
    "planner/reader.py": "planner/core/reading/fields.py",
    # core/model: the declared cluster and the findings about it
    "planner/model.py": "planner/core/model/cluster.py",
    "planner/findings.py": "planner/core/model/findings.py",
    # core/catalogue: what AWS sells, its figures, and the shipped data they are read from
    "planner/catalogue.py": "planner/core/catalogue/instance_types.py",
    "planner/blocks.py": "planner/core/catalogue/capacity_blocks.py",
    "planner/data/__init__.py": "planner/core/catalogue/shipped_data.py",
    "planner/data/prebuilt.py": "planner/core/catalogue/prebuilt_data.py",  # branch speed: the YAML as literals
    # core/input: stack files and Pulumi projects in, the model out; where a key path is
    "planner/parse.py": "planner/core/input/stack_files.py",
    "planner/schema.py": "planner/core/input/json_schema.py",
    "planner/project.py": "planner/core/input/pulumi_project.py",
    "planner/locate.py": "planner/core/input/locations.py",
    # core/rules: the registry beside the rules it registers
    "planner/registry.py": "planner/core/rules/rule_registry.py",  # not registry.py: the rules package has a registry()
    # core/planning: one stack through summary, rules and cost, and the document built from the plans
    "planner/pipeline.py": "planner/core/planning/pipeline.py",
    # branch doc: the builder needs the plans and the rules' metadata, so it sits above them (the
    # document's types are below the cost and the pipeline, which fill them)
    "planner/core/document/build.py": "planner/core/planning/build_report.py",
    "planner/summary.py": "planner/core/planning/summary.py",
    # runtime: a Pulumi program run offline, in a child process, under mocks
    "planner/sandbox.py": "planner/runtime/sandbox.py",
    "planner/program_child.py": "planner/runtime/child_process.py",
    "planner/programs.py": "planner/runtime/offline_run.py",
    "planner/mocking.py": "planner/runtime/mocks.py",
    "planner/wire.py": "planner/runtime/model_json.py",
    "planner/components/registry.py": "planner/runtime/declared_clusters.py",
    # readback: resources -> the declared cluster
    "planner/readback.py": "planner/readback/program_resources.py",
    "planner/program_terms.py": "planner/readback/program_terms.py",
    "planner/policy/topology.py": "planner/readback/topology.py",
    "planner/policy/resources.py": "planner/readback/resources.py",
    "planner/policy/karpenter.py": "planner/readback/karpenter.py",
    "planner/policy/elastic.py": "planner/readback/elastic_compute.py",
    "planner/policy/security_groups.py": "planner/readback/security_groups.py",
    "planner/policy/resource_inputs.py": "planner/readback/resource_inputs.py",
}

# What stays where it is (anything else loose under planner/ is reported: add it to a table).
STAYS = (
    "planner/__init__.py",
    "planner/__main__.py",
    "planner/cli.py",
    "planner/commands/",
    "planner/components/",
    "planner/provider/",
    "planner/policy/",
    "planner/aws/",
    "planner/testing/",
    "planner/core/",
    "planner/runtime/",
    "planner/readback/",
    "planner/pulumi_program/",
)

# The new packages, each with the docstring of its __init__.py (written only when missing).
PACKAGES: dict[str, str] = {
    "planner/core/reading": "Reading user files: bounded and regular, YAML with the line of every value, mapping trees\n"
    "against field tables, and the one-line problems all of them report.",
    "planner/core/model": "The declared cluster (frozen records that keep their key paths) and the findings about it.",
    "planner/core/catalogue": "What AWS sells and its figures: instance and UltraServer types, Capacity Block rules of sale,\n"
    "and the shipped data (planner/data/*.yaml) they are read from.",
    "planner/core/input": "Stack files and Pulumi projects in, the model out; the stack's JSON Schema; where a key path is.",
    "planner/core/planning": "One stack through the summary, the rules and the cost (the planning every entry point shares),\n"
    "and the output document built from the plans.",
    "planner/runtime": "A Pulumi program run offline: the sandboxed child process, the mocks, and what crosses the\n"
    "process boundary (the declared clusters, as JSON). Imports pulumi: commands import it lazily.",
    "planner/readback": "Resources -> the declared cluster: the one read-back the policy pack and `plan --program` share.",
}

# The import contracts: outer layers as folders, then the core's parts, top to bottom.
LAYERS = [
    "planner.cli : planner.commands : planner.__main__",
    "planner.components : planner.provider : planner.policy : planner.aws : planner.testing",
    "planner.runtime",
    "planner.readback",
    "planner.core",
]
# the child process (`collect`) turns the components' own input error (a pulumi.RunError) into planner's
LAYER_IGNORES = ["planner.runtime.offline_run -> planner.components"]
CORE_PARTS = ["render", "planning", "rules", "cost", "document", "input", "catalogue", "model", "reading", "text"]

# What no pattern can see: a path put together from parts (file, text as it is today, text it becomes).
# Applied after the patterns, to the file at its new path; each is a no-op once applied.
LITERAL_REWRITES = [
    (
        "tools/gen_prebuilt_data.py",
        'OUT = DATA / "prebuilt.py"',
        'OUT = ROOT / "planner" / "core" / "catalogue" / "prebuilt_data.py"',
    ),
    # the shipped schema file, from the module's new folder (planner/core/input/ -> planner/data/)
    (
        "planner/core/input/json_schema.py",
        'os.path.join(os.path.dirname(__file__), "data", "schema", "stack.schema.json")',
        'os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "data", "schema", "stack.schema.json")',
    ),
    # the read-back may not import the pack: Violation is the topology's (planning re-exports it)
    (
        "planner/readback/security_groups.py",
        "from planner.policy.planning import Violation\n",
        "from planner.readback.topology import Violation\n",
    ),
    # branch doc: the renderers' import test; text.py left the render folder for the bottom of the core
    (
        "tests/test_snapshots.py",
        '"cost_report", "text", "bounded",',
        '"cost_report", "bounded",',
    ),
    (
        "tests/test_snapshots.py",
        'ALLOWED = ("planner.core.document", "planner.core.render", "planner.__version__")',
        'ALLOWED = ("planner.core.document", "planner.core.render", "planner.core.text", "planner.__version__")',
    ),
]

# Generated files whose sources the rewrite may have touched (a data file's comment, a docstring):
# regenerated after a run that changed anything, each when its generator exists on the branch.
REGENERATE = ["tools.gen_prebuilt_data", "tools.gen_reference"]

SKIP = ("CHANGELOG.md", "docs/changelog.md", "tests/corpus/", "tools/relayout.py")


def module_of(path: str) -> str:
    """planner/x/y.py -> planner.x.y; a package's __init__.py or a folder -> the package."""
    p = path[:-3] if path.endswith(".py") else path.rstrip("/")
    if p.endswith("/__init__"):
        p = p[: -len("/__init__")]
    return p.replace("/", ".")


OLD_MODULES: dict[str, str] = {module_of(o): module_of(n) for o, n in FILE_MOVES.items()}
OLD_PACKAGES: dict[str, str] = {module_of(o): module_of(n) for o, n in DIR_MOVES.items()}


def new_path(path: str) -> str | None:
    """Where a tracked file goes, or None when it stays."""
    if path in FILE_MOVES:
        return FILE_MOVES[path]
    for old, new in sorted(DIR_MOVES.items(), key=lambda kv: -len(kv[0])):
        if path.startswith(old + "/"):
            return new + path[len(old) :]
    return None


class Mapper:
    """Old dotted names and paths to new ones; identity on everything already new."""

    def __init__(self, readback_collision: bool) -> None:
        self.modules = dict(OLD_MODULES)
        if not readback_collision:
            del self.modules["planner.readback"]

    def dotted(self, name: str) -> str:
        parts = name.split(".")
        for i in range(len(parts), 1, -1):
            head, tail = ".".join(parts[:i]), parts[i:]
            if head in self.modules:
                if head == "planner.readback" and tail and f"planner/readback/{tail[0]}.py" in FILE_MOVES.values():
                    return name  # already a module of the new read-back package
                return ".".join([self.modules[head]] + tail)
            if head in OLD_PACKAGES:
                return ".".join([OLD_PACKAGES[head]] + tail)
        return name

    def is_moved_module(self, name: str) -> bool:
        """A module or package that moves (`from planner import rules` must name its new parent)."""
        return name in self.modules or name in OLD_PACKAGES

    def slash(self, path: str) -> str:
        trail = "/" if path.endswith("/") else ""
        p = path.rstrip("/")
        if p in FILE_MOVES:
            return FILE_MOVES[p] + trail
        for old, new in sorted(DIR_MOVES.items(), key=lambda kv: -len(kv[0])):
            if p == old or p.startswith(old + "/"):
                inner = p[len(old) :]
                if old + inner in FILE_MOVES:
                    return FILE_MOVES[old + inner] + trail
                return new + inner + trail
        return path


# at the start of a line, or inline: after `; ` or an opening quote or backtick (`python -c "from planner ..."`)
FROM_RE = re.compile(
    r"(?:^(?P<indent>[ \t]*)|(?<=; )|(?<=[\"'`]))from[ \t]+(?P<mod>planner(?:\.\w+)*)[ \t]+import[ \t]+"
    r"(?P<names>\([^)]*\)|[^\n;\"'`]*)",
    re.M,
)
DOTTED_RE = re.compile(r"(?<![\w.])planner(?:\.[A-Za-z_]\w*)+")
SLASH_RE = re.compile(r"(?<![\w.-])planner(?:/[\w.-]+)+/?")
JOIN_RE = re.compile(r"""(?P<q>["'])planner(?P=q)(?P<rest>(?:\s*/\s*["'][\w.-]+["'])+)""")


def rewrite_from(m: re.Match[str], mapper: Mapper, inline: bool = False) -> str:
    """`from planner.x import a, b as c` with moved modules among the names: one statement per new parent."""
    indent, mod, names = m.group("indent") or "", m.group("mod"), m.group("names")
    comment = ""
    if names.startswith("("):
        body = "\n".join(line.split("#", 1)[0] for line in names[1:-1].splitlines())
    else:
        body, _, comment = names.partition("#")
        comment = ("  #" + comment.rstrip()) if comment else ""
        if body.rstrip().endswith("\\"):
            return m.group(0)
    items = [i.strip() for i in body.replace("\n", " ").split(",") if i.strip()]
    parsed = []
    for item in items:
        name, _, alias = (p.strip() for p in item.partition(" as "))
        parsed.append((name, alias))
    if not any(mapper.is_moved_module(f"{mod}.{n}") for n, _ in parsed):
        # at most the module moved: rewrite it in place, keeping the statement as written
        start = m.start("mod") - m.start(0)
        return m.group(0)[:start] + mapper.dotted(mod) + m.group(0)[start + len(mod) :]
    groups: dict[str, list[str]] = {}
    for name, alias in parsed:
        full = f"{mod}.{name}"
        if mapper.is_moved_module(full):
            parent, _, leaf = mapper.dotted(full).rpartition(".")
            binding = alias or name
            groups.setdefault(parent, []).append(leaf if binding == leaf else f"{leaf} as {binding}")
        else:
            groups.setdefault(mapper.dotted(mod), []).append(f"{name} as {alias}" if alias else name)
    lines = [f"{indent}from {parent} import {', '.join(names_)}" for parent, names_ in groups.items()]
    lines[0] += comment
    return ("; " if inline else "\n").join(lines)


ANY_RE = re.compile(
    "|".join(
        f"(?P<{name}>{rx.pattern})"
        for name, rx in (("from_", FROM_RE), ("join", JOIN_RE), ("dotted", DOTTED_RE), ("slash", SLASH_RE))
    ),
    re.M,
)
NO_FROM_RE = re.compile(
    "|".join(
        f"(?P<{name}>{rx.pattern})" for name, rx in (("join", JOIN_RE), ("dotted", DOTTED_RE), ("slash", SLASH_RE))
    ),
    re.M,
)


def rewrite_text(text: str, mapper: Mapper, python_like: bool) -> str:
    """One pass over the text, so nothing rewritten is read again (`from planner.readback import
    karpenter`, just written, must not be taken for the old module readback.py)."""

    def one(m: re.Match[str]) -> str:
        kind = (
            m.lastgroup
            if m.lastgroup in ("from_", "join", "dotted", "slash")
            else next(k for k in ("from_", "join", "dotted", "slash") if m.groupdict().get(k) is not None)
        )
        if kind == "from_":
            sub = FROM_RE.match(m.group(0))
            assert sub is not None
            line_start = m.string.rfind("\n", 0, m.start()) + 1
            inline = bool(m.string[line_start : m.start()].strip())
            return rewrite_from(sub, mapper, inline)
        if kind == "dotted":
            return mapper.dotted(m.group(0))
        if kind == "slash":
            return mapper.slash(m.group(0))
        inner = JOIN_RE.match(m.group(0))
        assert inner is not None
        q = inner.group("q")
        parts = ["planner"] + [s.strip().strip("\"'") for s in inner.group("rest").split("/")[1:]]
        return " / ".join(f"{q}{p}{q}" for p in mapper.slash("/".join(parts)).split("/"))

    return (ANY_RE if python_like else NO_FROM_RE).sub(one, text)


def contracts() -> str:
    """pyproject.toml's [tool.importlinter] tables, from LAYERS and CORE_PARTS."""

    def toml_list(items: list[str], indent: str = "    ") -> str:
        return "[\n" + "".join(f'{indent}"{i}",\n' for i in items) + "]"

    ignores = "".join(f'    "{k}",\n' for k in LAYER_IGNORES)
    return f"""# `lint-imports` (run by `make test` and tests/test_imports.py): the layers as folders, top to
# bottom (docs/design.md), generated by tools/relayout.py. A layer may import the layers below
# it; siblings joined by `:` may import each other. The core's parts are ordered the same way,
# and the core imports neither pulumi, boto3 nor botocore (so `planner plan` starts fast).
# tests/test_imports.py also walks every import, function-level ones included, and fails on
# any cycle.
[tool.importlinter]
root_package = "planner"
include_external_packages = true

[[tool.importlinter.contracts]]
name = "Layers: entry points, adapters, the program runtime, the read-back, the core"
type = "layers"
layers = {toml_list(LAYERS)}
# the child process catches the components' own input error (`collect`) to report it as planner's
ignore_imports = [
{ignores}]

[[tool.importlinter.contracts]]
name = "The core's parts: {", ".join(CORE_PARTS)}"
type = "layers"
containers = ["planner.core"]
layers = {toml_list(CORE_PARTS)}

[[tool.importlinter.contracts]]
name = "The core imports neither pulumi nor boto3 nor botocore"
type = "forbidden"
source_modules = ["planner.core"]
forbidden_modules = ["pulumi", "pulumi_aws", "pulumi_policy", "boto3", "botocore"]

# `plan --program` reads resources back without Pulumi; only the pack's props are copied
# out of pulumi_policy's proxy (readback.resources.plain, at call time)
[[tool.importlinter.contracts]]
name = "The read-back imports neither pulumi nor pulumi_aws nor boto3 nor botocore"
type = "forbidden"
source_modules = ["planner.readback"]
forbidden_modules = ["pulumi", "pulumi_aws", "boto3", "botocore"]
"""


def with_contracts(pyproject: str) -> str:
    """pyproject.toml with its import-linter tables (and the comment above them) replaced."""
    lines = pyproject.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.strip() == "[tool.importlinter]"), None)
    if start is None:
        return pyproject.rstrip("\n") + "\n\n" + contracts()
    while start > 0 and lines[start - 1].startswith("#"):
        start -= 1
    end = start + 1
    while end < len(lines):
        s = lines[end].strip()
        if s.startswith("[") and not s.startswith(("[tool.importlinter", "[[tool.importlinter")):
            break
        end += 1
    while end > start and end < len(lines) and lines[end - 1].startswith("#"):
        end -= 1  # a comment above the next table belongs to it
    tail = "".join(lines[end:])
    return "".join(lines[:start]) + contracts() + ("\n" + tail if tail else "")


MYPY_FILES_RE = re.compile(r"(?P<head>^\[tool\.mypy\][^\[]*?^files = )\[(?P<body>[^\]]*)\]", re.M | re.S)


def tidy_mypy_files(pyproject: str) -> str:
    """[tool.mypy] `files` after the moves: no entry inside a folder listed too (the core's modules
    are now `planner/core`), no folder left without Python files (planner/data), one per line."""
    m = MYPY_FILES_RE.search(pyproject)
    if not m:
        return pyproject
    entries = re.findall(r'"([^"]+)"', m.group("body"))
    folders = [e for e in entries if (ROOT / e).is_dir()]
    kept = []
    for e in entries:
        if (ROOT / e).is_dir() and not any((ROOT / e).rglob("*.py")):
            continue
        if any(e != f and e.startswith(f.rstrip("/") + "/") for f in folders) or e in kept:
            continue
        kept.append(e)
    body = "\n" + "".join(f'    "{e}",\n' for e in kept)
    return pyproject[: m.start()] + m.group("head") + "[" + body + "]" + pyproject[m.end() :]


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def tracked() -> list[str]:
    return [p for p in git("ls-files", "-z").split("\0") if p and (ROOT / p).exists()]


def plan_moves(files: list[str]) -> list[tuple[str, str]]:
    moves = []
    for f in files:
        target = new_path(f)
        if target and not (ROOT / target).exists():
            moves.append((f, target))
    return moves


def unmapped(files: list[str]) -> list[str]:
    """Python files under planner/ that no table moves and that are not where they belong."""
    return [
        f
        for f in files
        if f.startswith("planner/")
        and f.endswith(".py")
        and new_path(f) is None
        and not f.startswith(STAYS)
        and f not in STAYS
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.relayout", description=__doc__.split("\n", 1)[0])
    ap.add_argument("--check", action="store_true", help="print what would change, change nothing (exit 1 if anything)")
    args = ap.parse_args(argv)
    os.chdir(ROOT)
    started = time.monotonic()
    files = tracked()
    mapper = Mapper(readback_collision=(ROOT / "planner" / "readback.py").is_file())
    moves = plan_moves(files)
    changed = 0
    for old, new in moves:
        print(f"move    {old} -> {new}")
        if not args.check:
            (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
            git("mv", old, new)
    changed += len(moves)
    for package, doc in PACKAGES.items():
        init = ROOT / package / "__init__.py"
        if not init.exists():
            print(f"create  {package}/__init__.py")
            changed += 1
            if not args.check:
                init.parent.mkdir(parents=True, exist_ok=True)
                init.write_text(f'"""{doc}"""\n', encoding="utf-8")
                git("add", str(init.relative_to(ROOT)))
    if not args.check:
        for old in sorted({str(Path(o).parent) for o, _ in moves} | set(DIR_MOVES), key=len, reverse=True):
            d = ROOT / old
            if d.is_dir() and not any(p.name != "__pycache__" for p in d.iterdir()):
                shutil.rmtree(d)
    # in --check the moves have not happened: read each file where it is now
    files = tracked() if not args.check else files
    for f in files:
        if f.startswith(SKIP) or f in SKIP:
            continue
        path = ROOT / f
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, IsADirectoryError):
            continue
        new = rewrite_text(text, mapper, python_like=f.endswith((".py", ".md")))
        if f == "pyproject.toml":
            new = with_contracts(new)
            if not args.check:
                new = tidy_mypy_files(new)  # reads the folders as they are after the moves
        for file, old, replacement in LITERAL_REWRITES:
            if f == file:
                new = new.replace(old, replacement)
                if replacement not in new:
                    print(
                        f"LITERAL {f}: {old!r} not found, nor its rewrite (the file may say it another way): check it by hand",
                        file=sys.stderr,
                    )
        if new != text:
            changed += 1
            ops = difflib.SequenceMatcher(None, text.splitlines(), new.splitlines(), autojunk=False).get_opcodes()
            n = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag != "equal")
            print(f"rewrite {f} ({n} line{'s' if n != 1 else ''})")
            if not args.check:
                path.write_text(new, encoding="utf-8")
    if changed and not args.check:
        for generator in REGENERATE:
            if (ROOT / (generator.replace(".", "/") + ".py")).is_file():
                print(f"run     python -m {generator}")
                subprocess.run([sys.executable, "-m", generator], cwd=ROOT, check=True)
    for f in unmapped(tracked()):
        print(f"UNMAPPED {f}: no table moves it; add it to FILE_MOVES in tools/relayout.py", file=sys.stderr)
    print(f"{changed} change(s){' to make' if args.check else ''} in {time.monotonic() - started:.1f} s")
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
