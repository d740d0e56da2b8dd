"""Re-run every documented `$ planner ...` example and paste what it prints now.

The documentation shows command output as real output (the developers' guide): every fenced
block (```, ```console or ```text) of README.md and docs/**/*.md (not docs/reference/,
which is generated) whose first line is `$ planner ...` or `$ .venv/bin/planner ...` is run
here, each `$ ` command of it in order, with COLUMNS=100 and no colour; `$ echo $?` prints
the previous command's exit code. `tests/test_doc_examples.py` fails when a page shows
something else; this tool rewrites the blocks in place, so the pages and the product agree
again. Review the diff before committing it: the prose around an example must still
describe it.

Blocks that need a setup the page describes in prose get it here (`setup_for`), so the
same relative paths print the same text: `diff --base-ref HEAD stacks` runs in a throwaway
git repository holding the stacks, with the page's edits applied after the commit; the
bad `--price-book my-prices.yaml` is the page's file with the page's bad value; preflight
runs in moto's account with the page's stack file, `planner capacity` against a local
stand-in for EC2's Capacity Block offerings (tests/ec2_capacity_stub.py, through
AWS_ENDPOINT_URL_EC2), and `--live-prices` and the preflight error run without credentials. Two outputs that are not `planner` commands are produced
the same way: the policy pack page's `check(capture(program))` snippet (run on its
`my_cluster.py`), the programs page's component error (the program run with
`planner.testing` on the stack file that page shows) and the pull-request page's Mermaid
diagram (from `planner plan STACK --format markdown`).

A block whose expected output has `...` lines (an elision) matches when its other lines
appear in order; when it is stale it is rewritten with the same elisions, placed between
the lines around them in the new output.

    .venv/bin/python -m tools.doc_examples          # rewrite stale blocks
    .venv/bin/python -m tools.doc_examples --check  # list them, exit 1 if any
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = "100"
SNIPPET = "from my_cluster import"
MERMAID = re.compile(r"The Markdown diagram for `(stacks/Pulumi\.[\w-]+\.yaml)`")
PLANNER = ("$ planner ", "$ .venv/bin/planner ")
ELLIPSIS = "..."


@dataclass
class Command:
    """One `$ ` command of a block: its lines as written and the output shown under it."""

    lines: list[str]
    shown: list[str] = field(default_factory=list)

    @property
    def argv(self) -> list[str]:
        text = " ".join(line[:-1] if line.endswith("\\") else line for line in self.lines)
        return shlex.split(text[2:])


@dataclass
class Block:
    """A fenced example: where it is (page, character span of its body) and what it shows."""

    page: str
    start: int
    end: int
    body: str
    kind: str = "commands"  # or "policy-snippet", "component-error", "mermaid"

    @property
    def commands(self) -> list[Command]:
        out: list[Command] = []
        lines = self.body.rstrip("\n").split("\n")
        i = 0
        while i < len(lines):
            if lines[i].startswith("$ "):
                cmd = Command([lines[i]])
                while cmd.lines[-1].endswith("\\") and i + 1 < len(lines):
                    i += 1
                    cmd.lines.append(lines[i])
                out.append(cmd)
            elif out:
                out[-1].shown.append(lines[i])
            i += 1
        return out

    @property
    def title(self) -> str:
        first = self.body.split("\n", 1)[0]
        return f"{self.page}: {first[2:] if first.startswith('$ ') else self.kind}"

    @property
    def shown(self) -> list[str]:
        return self.body.rstrip("\n").split("\n")


def pages() -> list[str]:
    """README.md and every hand-written docs page, in a stable order."""
    docs = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md"))
    return ["README.md"] + [p for p in docs if not p.startswith("docs/reference/")]


def page_text(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


@dataclass
class Fence:
    """A fenced block of a page: its info string, and the character span of its body."""

    lang: str
    start: int
    end: int
    text: str

    @property
    def body(self) -> str:
        return self.text[self.start : self.end]


def fences(text: str) -> list[Fence]:
    """Every fenced block, opening and closing fences paired in order (```yaml included)."""
    out: list[Fence] = []
    pos = 0
    lang: str | None = None
    start = 0
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\n")
        if lang is None and stripped.startswith("```"):
            lang, start = stripped[3:].strip(), pos + len(line)
        elif lang is not None and stripped == "```":
            out.append(Fence(lang, start, pos, text))
            lang = None
        pos += len(line)
    return out


def blocks(rel: str, text: str | None = None) -> list[Block]:
    """The runnable examples of one page: `$ planner` blocks, and the outputs shown without a command."""
    text = page_text(rel) if text is None else text
    out = []
    found = fences(text)
    for k, f in enumerate(found):
        if f.lang not in ("", "console", "text"):
            continue
        body = f.body
        if body.startswith(PLANNER):
            out.append(Block(rel, f.start, f.end, body))
        elif f.lang == "text" and k and found[k - 1].lang == "python" and found[k - 1].body.startswith(SNIPPET):
            out.append(Block(rel, f.start, f.end, body, kind="policy-snippet"))
        elif body.startswith("UltraServerCluster(") and "planner found" in body:
            out.append(Block(rel, f.start, f.end, body, kind="component-error"))
    for f in found:
        if f.lang == "mermaid" and MERMAID.search(text[max(0, f.start - 300) : f.start]):
            out.append(Block(rel, f.start, f.end, f.body, kind="mermaid"))
    return sorted(out, key=lambda b: b.start)


def all_blocks() -> list[Block]:
    return [b for rel in pages() for b in blocks(rel)]


# --- running ---------------------------------------------------------------------------


@contextlib.contextmanager
def environment(**changes: str | None) -> Iterator[None]:
    """Set (or, with None, remove) environment variables for the duration; restore them after."""
    old = {k: os.environ.get(k) for k in changes}
    try:
        for k, v in changes.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_planner(argv: list[str], cwd: Path) -> tuple[int, str]:
    """`planner ARGV` in this process, in `cwd`: exit code and stdout and stderr as a terminal shows them."""
    from planner.cli import main

    out = io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse usage errors
                code = exc.code if isinstance(exc.code, int) else 2
    finally:
        os.chdir(old)
    return int(code or 0), out.getvalue()


def _no_aws(tmp: Path, credentials: bool) -> contextlib.AbstractContextManager[None]:
    """Nothing of the real AWS environment: fake (or no) credentials, no config files, no IMDS."""
    fake = "testing" if credentials else None
    return environment(
        AWS_ACCESS_KEY_ID=fake,
        AWS_SECRET_ACCESS_KEY=fake,
        AWS_SECURITY_TOKEN=fake,
        AWS_SESSION_TOKEN=fake,
        AWS_PROFILE=None,
        AWS_DEFAULT_PROFILE=None,
        AWS_CONTAINER_CREDENTIALS_RELATIVE_URI=None,
        AWS_CONTAINER_CREDENTIALS_FULL_URI=None,
        AWS_WEB_IDENTITY_TOKEN_FILE=None,
        AWS_ROLE_ARN=None,
        AWS_CONFIG_FILE=str(tmp / "no-aws-config"),
        AWS_SHARED_CREDENTIALS_FILE=str(tmp / "no-aws-credentials"),
        AWS_EC2_METADATA_DISABLED="true",
        AWS_DEFAULT_REGION="us-east-1",
        XDG_CACHE_HOME=str(tmp / "cache"),
    )


def _need(pattern: str, text: str, what: str, flags: int = re.S) -> re.Match[str]:
    m = re.search(pattern, text, flags=flags)
    if not m:
        raise LookupError(f"{what} is missing from the page")
    return m


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    if text.count(old) != 1:
        raise LookupError(f"{path.name}: expected one {old!r} to edit")
    path.write_text(text.replace(old, new), encoding="utf-8")


# The edits the compare page describes before its `diff --base-ref HEAD stacks` example.
DIFF_EDITS_PROSE = (
    "doubling `p5en-train` to 16 instances",
    "lengthening `ultraserver-prod` to\n400 hours",
    "deleting `trn2-dev`",
)


@contextlib.contextmanager
def _git_stacks(text: str) -> Iterator[Path]:
    """A git repository whose HEAD holds the repository's stacks, then the compare page's edits."""
    for phrase in DIFF_EDITS_PROSE:
        _need(re.escape(phrase), text, f"the edit '{phrase}' before the diff example")
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        shutil.copytree(ROOT / "stacks", repo / "stacks")
        git = ["git", "-c", "user.name=doc", "-c", "user.email=doc@example.com", "-c", "commit.gpgsign=false"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        for args in (["init", "-q"], ["add", "stacks"], ["commit", "-q", "-m", "stacks"]):
            subprocess.run(git + args, cwd=repo, check=True, env=env, capture_output=True)
        _edit(repo / "stacks/Pulumi.p5en-train.yaml", "count: 8\n", "count: 16\n")
        _edit(repo / "stacks/Pulumi.ultraserver-prod.yaml", "hours: 336\n", "hours: 400\n")
        (repo / "stacks/Pulumi.trn2-dev.yaml").unlink()
        yield repo


PROGRAM = "eks-p5e-capacity-block-managed"  # the corpus program the program workflow's examples run
PROGRAM_PAGE = "docs/tasks/your-own-program.md"  # where its stack config and the edit are shown
PROGRAM_EDIT = (
    '"min_size": 2, "max_size": 2, "desired_size": 2},\n    subnet_ids=[private[0].id]',  # the cbr group
    '"min_size": 4, "max_size": 4, "desired_size": 4},\n    subnet_ids=[private[0].id]',
)


@contextlib.contextmanager
def _git_program(text: str, edited: bool) -> Iterator[Path]:
    """A git repository whose HEAD holds a corpus program as `infra/`, with the stack config the
    program page shows (`infra/Pulumi.test.yaml`); with `edited`, the node group doubled in the working tree."""
    config = _need(
        r"```yaml\n(# infra/Pulumi\.test\.yaml.*?)```", text, "the program's stack config (infra/Pulumi.test.yaml)"
    )
    _need(r"`desired_size` of the\s+`cbr` node group\s+from 2 to 4", text, "the edit before the program diff example")
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        shutil.copytree(ROOT / "tests" / "corpus" / PROGRAM, repo / "infra")
        (repo / "infra" / "Pulumi.test.yaml").write_text(config.group(1), encoding="utf-8")
        main = repo / "infra" / "__main__.py"
        git = ["git", "-c", "user.name=doc", "-c", "user.email=doc@example.com", "-c", "commit.gpgsign=false"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        for args in (["init", "-q"], ["add", "infra"], ["commit", "-q", "-m", "infra"]):
            subprocess.run(git + args, cwd=repo, check=True, env=env, capture_output=True)
        if edited:
            _edit(main, *PROGRAM_EDIT)
        yield repo


@contextlib.contextmanager
def _bad_price_book(text: str) -> Iterator[Path]:
    """The cost page's price book file, with the bad value its prose names, beside the stacks."""
    book = _need(r"```yaml\n(instances:\n.*?)```", text, "the price book file").group(1)
    _need(r"`usd_per_hour: free`", text, "the bad value (`usd_per_hour: free`)")
    bad, n = re.subn(r"usd_per_hour: [0-9.]+", "usd_per_hour: free", book, count=1)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "my-prices.yaml").write_text(bad, encoding="utf-8")
        shutil.copytree(ROOT / "stacks", Path(tmp) / "stacks")
        yield Path(tmp)


@contextlib.contextmanager
def _preflight(text: str, credentials: bool) -> Iterator[Path]:
    """The preflight page's stack file in stacks/, run in moto's account."""
    from moto import mock_aws

    stack = _need(r"```yaml\n(# On-demand P5 and a Capacity Block.*?)```", text, "the preflight example's stack file")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "stacks").mkdir()
        (Path(tmp) / "stacks/Pulumi.p5-research.yaml").write_text(stack.group(1), encoding="utf-8")
        with _no_aws(Path(tmp), credentials), mock_aws():
            yield Path(tmp)


@contextlib.contextmanager
def _without_credentials() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp, _no_aws(Path(tmp), credentials=False):
        yield ROOT


@contextlib.contextmanager
def _here() -> Iterator[Path]:
    yield ROOT


@contextlib.contextmanager
def _capacity_endpoint() -> Iterator[Path]:
    """`planner capacity` against the local EC2 stand-in (tests/ec2_capacity_stub.py) serving the find-capacity
    page's example offerings, reached through AWS_ENDPOINT_URL_EC2 as the page says."""
    from tests.ec2_capacity_stub import serve, three_regions

    with (
        tempfile.TemporaryDirectory() as tmp,
        _no_aws(Path(tmp), credentials=True),
        serve(three_regions()) as url,
        environment(AWS_ENDPOINT_URL_EC2=url),
    ):
        yield ROOT


def setup_for(block: Block) -> Callable[[], contextlib.AbstractContextManager[Path]]:
    """Where (and in which AWS environment) a block's commands run; the page's prose says why."""
    argv = block.commands[0].argv if block.commands else []
    text = page_text(block.page)
    if any(a == "infra" or a.startswith("infra/") for a in argv):  # the program pages' `infra/`, a Pulumi project
        return lambda: _git_program(page_text(PROGRAM_PAGE), edited="--base-ref" in argv)
    if "--base-ref" in argv:
        return lambda: _git_stacks(text)
    if "my-prices.yaml" in argv:
        return lambda: _bad_price_book(text)
    if argv[1:2] == ["preflight"] and len(argv) > 2:
        return lambda: _preflight(text, credentials=True)
    if argv[1:2] == ["capacity"]:
        return _capacity_endpoint
    if "--live-prices" in argv or argv[1:] == ["preflight"]:  # the pages show what happens without credentials
        return _without_credentials
    return _here


def run_commands(block: Block) -> str:
    """The block as it would read now: each command line, then what it prints."""
    out: list[str] = []
    code = 0
    with setup_for(block)() as cwd, environment(COLUMNS=COLUMNS, NO_COLOR="1", FORCE_COLOR=None):
        for cmd in block.commands:
            argv = cmd.argv
            out += cmd.lines
            if argv == ["echo", "$?"]:
                out.append(str(code))
                continue
            if argv[0] not in ("planner", ".venv/bin/planner"):
                raise ValueError(f"{block.title}: cannot run `{' '.join(argv)}` (only planner and `echo $?`)")
            code, printed = run_planner(argv[1:], cwd)
            out += printed.rstrip("\n").split("\n") if printed else []
    return "\n".join(out) + "\n"


def run_policy_snippet(block: Block) -> str:
    """The policy pack page's snippet, run on the page's `my_cluster.py`: what it prints."""
    text = page_text(block.page)
    snippet = [f for f in fences(text) if f.lang == "python" and f.end < block.start][-1].body
    module = _need(r"\(`(\w+)\.py`\):\n\n```python\n(.*?)```", text, "the program file (`NAME.py`)")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / f"{module.group(1)}.py").write_text(module.group(2), encoding="utf-8")
        out = io.StringIO()
        sys.path.insert(0, tmp)
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(snippet, f"{block.page} snippet", "exec"), {"__name__": "__doc_snippet__"})
        finally:
            sys.path.remove(tmp)
            sys.modules.pop(module.group(1), None)
    return out.getvalue()


def run_mermaid(block: Block) -> str:
    """The Markdown report's diagram of the stack file the page names just before it."""
    text = page_text(block.page)
    matches_ = MERMAID.findall(text[max(0, block.start - 300) : block.start])
    with environment(COLUMNS=COLUMNS, NO_COLOR="1", FORCE_COLOR=None):
        _, report = run_planner(["plan", matches_[-1], "--format", "markdown"], ROOT)
    diagrams = [f.body for f in fences(report) if f.lang == "mermaid"]
    if len(diagrams) != 1:
        raise AssertionError(f"{block.title}: expected one diagram in the Markdown report, found {len(diagrams)}")
    return diagrams[0]


def run_component_error(block: Block) -> str:
    """The programs page's component error: the bundled program run with planner.testing on the page's stack file."""
    from moto import mock_aws

    from planner.components.checks import ClusterRejected
    from planner.testing import deploy

    text = page_text(block.page)
    stack = _need(r"```yaml\n(# stacks/Pulumi\.(\w+)\.yaml\n.*?)```", text, "the stack file of the component error")
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
        (project / "planner").mkdir()
        shutil.copytree(ROOT / "planner/pulumi_program", project / "planner/pulumi_program")
        (project / "stacks").mkdir()
        name = stack.group(2)
        (project / f"stacks/Pulumi.{name}.yaml").write_text(stack.group(1), encoding="utf-8")
        old = os.getcwd()
        os.chdir(project)
        try:
            with _no_aws(project, credentials=True), mock_aws():
                try:
                    deploy(".", name)
                except ClusterRejected as exc:
                    return str(exc).rstrip("\n") + "\n"
        finally:
            os.chdir(old)
    raise AssertionError(f"{block.title}: the program was not refused")


def render(block: Block) -> str:
    """What the block should hold now."""
    if block.kind == "policy-snippet":
        return run_policy_snippet(block)
    if block.kind == "mermaid":
        return run_mermaid(block)
    if block.kind == "component-error":
        return run_component_error(block)
    return run_commands(block)


# --- comparing and rewriting -----------------------------------------------------------


def is_ellipsis(line: str) -> bool:
    return line.strip() == ELLIPSIS


def matches(expected: list[str], got: list[str]) -> bool:
    """Equal, or, when `expected` elides with `...` lines, its other lines in order within `got`."""
    if not any(is_ellipsis(line) for line in expected):
        return expected == got
    rest = iter(got)
    return all(any(g == e for g in rest) for e in expected if not is_ellipsis(e))


def reelide(old: list[str], new: list[str]) -> list[str] | None:
    """`new` with `old`'s elisions: each `...` hides the new lines between those around it.

    The lines around an elision are found in `new` by aligning it with `old` (difflib); a
    changed line stands for the most similar line at its place. None when an elision cannot
    be placed.
    """
    if not any(is_ellipsis(line) for line in old):
        return new
    where: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            where.update({i1 + k: j1 + k for k in range(i2 - i1)})
    for i, line in enumerate(old):  # a changed line: the most similar new line between its neighbours' places
        if i in where or is_ellipsis(line):
            continue
        lo = max((where[k] + 1 for k in where if k < i), default=0)
        hi = min((where[k] for k in where if k > i), default=len(new))
        scored = [(difflib.SequenceMatcher(None, line, new[j], autojunk=False).ratio(), -j, j) for j in range(lo, hi)]
        if scored and max(scored)[0] >= 0.5:
            where[i] = max(scored)[2]
    out: list[str] = []
    j = 0
    for i, line in enumerate(old):
        if not is_ellipsis(line):
            continue
        before = max((k for k in range(i) if not is_ellipsis(old[k])), default=None)
        after = min((k for k in range(i + 1, len(old)) if not is_ellipsis(old[k])), default=None)
        if (before is not None and before not in where) or (after is not None and after not in where):
            return None
        lo = where[before] + 1 if before is not None else 0
        hi = where[after] if after is not None else len(new)
        if lo < j or hi < lo:
            return None
        out += new[j:lo] + [line]
        j = hi
    return out + new[j:]


def refresh(rel: str, report: Callable[[str], None] = print) -> tuple[str, list[str]]:
    """The page with every stale block rewritten, and the titles of those it could not rewrite."""
    text = page_text(rel)
    failed: list[str] = []
    for block in reversed(blocks(rel, text)):
        got = render(block)
        if matches(block.shown, got.rstrip("\n").split("\n")):
            continue
        new = reelide(block.shown, got.rstrip("\n").split("\n"))
        if new is None:
            failed.append(block.title)
            report(f"cannot place the elisions of {block.title}; it prints:\n{got}")
            continue
        report(f"stale: {block.title}")
        text = text[: block.start] + "\n".join(new) + "\n" + text[block.end :]
    return text, failed


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    check = "--check" in args
    stale = False
    failed: list[str] = []
    for rel in pages():
        new, bad = refresh(rel)
        failed += bad
        if new != page_text(rel):
            stale = True
            if not check:
                (ROOT / rel).write_text(new, encoding="utf-8")
                print(f"rewrote {rel}")
    if failed:
        print("rewrite by hand (keep the elisions): " + "; ".join(failed))
    return 1 if (stale or failed) and check else (1 if failed else 0)


if __name__ == "__main__":
    raise SystemExit(main())
