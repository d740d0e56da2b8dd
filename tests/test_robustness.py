"""Any stack file, however wrong, gives findings (exit 0/1) or a clean input error (exit 2).

A policy check that crashes with a traceback on a typo, or hangs on a hostile pull
request, is worse than none. These properties feed the loader, the parser and the CLI
random values, mutated bundled stacks, text edits, binary junk, anchors and aliases, deep
nesting and large files. Hypothesis runs derandomized with a bounded number of examples,
so CI sees the same inputs every time and the file stays within a few seconds.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT, Result, no_plan, run_cli, run_process
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench import hostile
from planner.core.input import stack_files as parse
from planner.core.reading import yaml_lines as yamlload
from planner.core.reading.problems import InputError

BUNDLED = sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))
HANG_SECONDS = 20  # a single plan taking this long is a hang, not a slow machine
# How fast hostile documents are refused is measured by `make bench` (bench/bounds.py), not here.

PROPERTY = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

KNOWN_KEYS = sorted(
    {
        *parse.CLUSTER_KEYS,
        *parse.GROUP_KEYS,
        *parse.LUSTRE_KEYS,
        *parse.WORKLOAD_KEYS,
        "hours",
        "total_usd",
        "monthly_usd",
        "rule",
        "reason",
        "vpc_id",
        "subnet_id",
    }
)

# Values chosen to sit on the edges the parser cares about, beside Hypothesis's own.
EDGE_SCALARS = st.sampled_from(
    [
        0,
        -1,
        1,
        4,
        63,
        64,
        65,
        2**31,
        2**63,
        10**9,
        10**9 + 1,
        10**18,
        -(10**18),
        10**40,
        0.5,
        -0.0,
        1e308,
        float("inf"),
        float("-inf"),
        float("nan"),
        True,
        False,
        None,
        "",
        " ",
        "\n",
        "~",
        "null",
        "yes",
        "0x10",
        "70e9",
        "1e400",
        "-5",
        "1_000",
        "trn2.48xlarge",
        "trn2u.48xlarge",
        "p5en.48xlarge",
        "trn3.48xlarge",
        "us-east-2b",
        "us-east-1a",
        "capacity-block",
        "spot",
        "PERSISTENT_2",
        "SCRATCH_1",
        "cluster",
        "bf16",
        "\u202etrn2",
        "\U0001f680",
        "\u00e9t\u00e9",
        "a\u2028b",
        "s3://bucket/\u00e9",
        "cr-0123456789abcdef0",
    ]
)
SCALARS = st.one_of(
    EDGE_SCALARS,
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
)
KEYS = st.one_of(st.sampled_from(KNOWN_KEYS), st.text(max_size=12), st.integers(-5, 5), st.booleans())
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=15,
)
_PROBLEM = re.compile(r"^planner: (?P<where>.+?): (?P<what>.+)$")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("robustness")


@contextmanager
def hang_guard(seconds: float = HANG_SECONDS) -> Iterator[None]:
    """Fail instead of hanging the suite: SIGALRM interrupts a run that takes `seconds`."""

    def interrupt(signum: int, frame: Any) -> None:
        raise TimeoutError(f"planner took more than {seconds} s: a hang")

    old = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def assert_clean(result: Result, path: Path) -> None:
    """Findings (0/1), or exit 2 with one `planner: FILE[:LINE]: ...` line per problem; never a traceback."""
    assert "Traceback" not in result.err and "Traceback" not in result.out, result.err
    assert result.code in (0, 1, 2), (result.code, result.err)
    if result.code == 2:
        lines = result.err.splitlines()
        assert lines, "exit 2 without saying why"
        assert no_plan(result.out), "no plan is written on invalid input, only its problems"
        for line in lines:
            m = _PROBLEM.match(line)
            assert m, f"not a one-line problem: {line!r}"
            assert m["where"].startswith(str(path)), line
            assert re.fullmatch(r"(:\d+)?", m["where"][len(str(path)) :].split(": ")[0]), line
    else:
        assert result.err == "", result.err
        assert result.out.strip(), "a plan prints what was declared"


def plan_file(workdir: Path, content: bytes | str, name: str = "Pulumi.fuzz.yaml") -> tuple[Result, Path]:
    path = workdir / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    with hang_guard():
        result = run_cli("plan", str(path))
    assert_clean(result, path)
    return result, path


def load_clean(path: Path) -> None:
    """The library entry point: a Stack, or InputError; nothing else escapes."""
    with hang_guard():
        try:
            parse.load_stack(str(path))
        except InputError as exc:
            assert exc.problems and all(p.file == str(path) for p in exc.problems)
            assert all("\n" not in str(p) for p in exc.problems), exc.problems


def dump(data: Any) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


def stack_data(cluster: Any, region: Any = "us-east-2") -> dict[str, Any]:
    return {"config": {"aws:region": region, "planner:cluster": cluster}}


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, prefix + (i,))
    return out


# --- properties ----------------------------------------------------------------------------


@PROPERTY
@given(cluster=VALUES, region=st.one_of(st.just("us-east-2"), SCALARS))
def test_random_cluster_values(workdir: Path, cluster: Any, region: Any) -> None:
    _, path = plan_file(workdir, dump(stack_data(cluster, region)))
    load_clean(path)


@PROPERTY
@given(data=st.data())
def test_mutated_bundled_stacks(workdir: Path, data: st.DataObject) -> None:
    """One to three edits (replace, delete, add a key, wrap in a list) to a valid stack's tree."""
    source = data.draw(st.sampled_from(BUNDLED), label="stack")
    tree = yaml.safe_load(source.read_text(encoding="utf-8"))
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        paths = [p for p in _paths(tree) if p]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths), label="path")
        parent = tree
        for part in path[:-1]:
            parent = parent[part]
        op = data.draw(st.sampled_from(["replace", "delete", "add", "wrap"]), label="op")
        if op == "replace":
            parent[path[-1]] = data.draw(VALUES, label="value")
        elif op == "delete":
            del parent[path[-1]]
        elif op == "add" and isinstance(parent, dict):
            parent[data.draw(KEYS, label="key")] = data.draw(VALUES, label="value")
        else:
            parent[path[-1]] = [parent[path[-1]]]
    _, path = plan_file(workdir, dump(tree))
    load_clean(path)


@PROPERTY
@given(data=st.data())
def test_text_edits_of_bundled_stacks(workdir: Path, data: st.DataObject) -> None:
    """Character-level damage: insertions of YAML punctuation, unicode, control characters; deletions."""
    text = data.draw(st.sampled_from(BUNDLED), label="stack").read_text(encoding="utf-8")
    noise = st.one_of(
        st.text(max_size=8),
        st.sampled_from(
            [
                "&a ",
                "*a",
                "<<: ",
                "- ",
                ": ",
                "{",
                "]",
                "'",
                '"',
                "!!int ",
                "!!bool ",
                "\t",
                "\r",
                "\x00",
                "\ufeff",
                "#",
            ]
        ),
    )
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        at = data.draw(st.integers(0, len(text)), label="at")
        if data.draw(st.booleans(), label="insert"):
            text = text[:at] + data.draw(noise, label="noise") + text[at:]
        else:
            text = text[:at] + text[at + data.draw(st.integers(1, 20), label="length") :]
    _, path = plan_file(workdir, text)
    load_clean(path)


@PROPERTY
@given(junk=st.binary(max_size=4096))
def test_binary_junk(workdir: Path, junk: bytes) -> None:
    plan_file(workdir, junk)


@PROPERTY
@given(junk=st.binary(min_size=1, max_size=512), at=st.integers(0, 400))
def test_binary_junk_inside_a_valid_stack(workdir: Path, junk: bytes, at: int) -> None:
    raw = BUNDLED[0].read_bytes()
    plan_file(workdir, raw[:at] + junk + raw[at:])


@PROPERTY
@given(
    copies=st.integers(1, 40),
    count=st.one_of(st.integers(-3, 70), SCALARS),
    merge=st.booleans(),
    override=st.dictionaries(st.sampled_from(parse.GROUP_KEYS), SCALARS, max_size=3),
)
def test_anchors_and_aliases(workdir: Path, copies: int, count: Any, merge: bool, override: dict[str, Any]) -> None:
    """Node groups built from anchors, aliases and merge keys, as teams write shared defaults."""
    extra = "".join(
        f"\n          {k}: {yaml.safe_dump(v, default_flow_style=True, allow_unicode=True).strip().removesuffix('...').strip() or '~'}"
        for k, v in override.items()
    )
    if merge:
        groups = "".join(f"\n      - <<: *base\n        name: g{i}{extra if i == 0 else ''}" for i in range(copies))
    else:
        groups = "\n      - *first" * copies
    text = f"""x-defaults:
  base: &base
    instance_type: trn2u.48xlarge
    count: &n {yaml.safe_dump(count, default_flow_style=True).strip().removesuffix("...").strip() or "~"}
    purchase: capacity-block
config:
  aws:region: us-east-2
  planner:cluster:
    availability_zone: us-east-2b
    placement_group: none
    node_groups:
      - &first
        name: first
        instance_type: trn2u.48xlarge
        count: *n{groups}
"""
    plan_file(workdir, text)


@settings(PROPERTY, max_examples=25)
@given(depth=st.integers(1, 5000), style=st.sampled_from(["flow-list", "flow-map", "block-map", "block-list"]))
def test_deep_nesting(workdir: Path, depth: int, style: str) -> None:
    plan_file(workdir, hostile.deep(depth, style))


def _price_book_values() -> st.SearchStrategy[Any]:
    from planner.core.cost import book

    entry = st.dictionaries(
        st.sampled_from(sorted({*book.INSTANCE_KEYS, *book.LUSTRE_KEYS, *book.DERIVED_KEYS})) | KEYS,
        SCALARS,
        max_size=8,
    )
    return st.dictionaries(st.sampled_from(book.TOP_KEYS) | KEYS, st.lists(entry, max_size=3) | VALUES, max_size=5)


@PROPERTY
@given(content=st.one_of(_price_book_values().map(dump), st.text(max_size=300)))
def test_random_price_book_files(workdir: Path, content: str) -> None:
    """`--price-book FILE` is user input too: its problems name the book's file and line."""
    path = workdir / "prices.yaml"
    path.write_text(content, encoding="utf-8")
    with hang_guard():
        result = run_cli("plan", str(BUNDLED[0]), "--price-book", str(path))
    assert_clean(result, path)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Pulumi project running planner's program, its stack config beside Pulumi.yaml."""
    folder = tmp_path_factory.mktemp("project")
    (folder / "Pulumi.yaml").write_text(
        f"name: fuzz\nruntime: python\nmain: {ROOT / 'planner' / 'pulumi_program'}\n", encoding="utf-8"
    )
    return folder


@settings(PROPERTY, max_examples=8)
@given(data=st.data())
def test_mutated_stacks_through_the_pulumi_program(project: Path, data: st.DataObject) -> None:
    """`planner plan --program DIR --stack NAME` runs the program under mocks: same contract."""
    tree = yaml.safe_load(data.draw(st.sampled_from(BUNDLED), label="stack").read_text(encoding="utf-8"))
    cluster = tree["config"]["planner:cluster"]
    key = data.draw(st.sampled_from(sorted(cluster)), label="key")
    cluster[key] = data.draw(VALUES, label="value")
    path = project / "Pulumi.fuzz.yaml"
    path.write_text(dump(tree), encoding="utf-8")
    with hang_guard(60):
        result = run_cli("plan", "--program", str(project), "--stack", "fuzz")
    assert "Traceback" not in result.err and result.code in (0, 1, 2), result.err
    if result.code == 2:
        assert result.err and no_plan(result.out)
        assert all(_PROBLEM.match(line) for line in result.err.splitlines()), result.err


# --- hostile documents, each refused with a clean error (how fast: `make bench`) -------------


@pytest.mark.parametrize("kind", hostile.BOMB_KINDS)
@pytest.mark.parametrize("levels,fan", hostile.BOMB_SHAPES)
def test_yaml_bombs_are_refused(workdir: Path, kind: str, levels: int, fan: int) -> None:
    result, _ = plan_file(workdir, hostile.laughs(levels, fan, kind))
    assert result.code == 2
    assert "refused" in result.err


def test_file_over_the_size_limit_is_refused(workdir: Path) -> None:
    result, _ = plan_file(workdir, hostile.over_the_size_limit())
    assert result.code == 2 and f"expected at most {yamlload.MAX_BYTES}" in result.err


def test_large_valid_file_is_planned(workdir: Path) -> None:
    """Just under the limit: a valid stack padded with 7 MiB of comments is planned."""
    raw = hostile.large_valid()
    assert len(raw) < yamlload.MAX_BYTES
    result, _ = plan_file(workdir, raw)
    assert result.code in (0, 1)


@pytest.mark.parametrize("groups", hostile.MANY_GROUPS)
def test_many_node_groups(workdir: Path, groups: int) -> None:
    """Thousands of node groups are planned; past the value budget (4 values each) refused."""
    result, _ = plan_file(workdir, hostile.many_groups(groups))
    if groups * 4 > yamlload.MAX_NODES:
        assert result.code == 2 and "refused" in result.err
    else:
        assert result.code in (0, 1)


@pytest.mark.parametrize("name", sorted(hostile.DENSE))
def test_dense_documents_near_the_size_limit_are_refused(workdir: Path, name: str) -> None:
    """Millions of tiny values in under 8 MiB: refused before composing (was 40 s and 1.2 GB)."""
    result, _ = plan_file(workdir, hostile.dense(hostile.DENSE[name]))
    assert result.code == 2 and "refused" in result.err


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"   \n\n",
        b"# only a comment\n",
        b"---\n",
        b"...\n",
        b"null\n",
        b"[]\n",
        b"{}\n",
        b"42\n",
        b"'text'\n",
        b"config:\n",
        b"config: []\n",
        b"config: {aws:region: us-east-2}\n",
        b"a: 1\n---\nb: 2\n",
        b"\xff\xfe\x00c\x00o\x00n\x00f\x00i\x00g\x00",
        b"config:\n\tplanner:cluster: {}\n",
        b"\x00\x00\x00",
        b"config: {aws:region: us-east-2, planner:cluster: &c [*c]}\n",
        b"? [a, b]\n: c\n",
        b"config: !!binary AAAA\n",
    ],
    ids=lambda c: repr(c[:24]),
)
def test_degenerate_files(workdir: Path, content: bytes) -> None:
    result, _ = plan_file(workdir, content)
    assert result.code == 2


# --- regressions: crashes found by these tests, fixed in planner/core/reading/yaml_lines.py and parse.py --


def _cluster_with(**group: str) -> str:
    fields = {"name": "g", "instance_type": "trn2.48xlarge", "count": "2", **group}
    body = "".join(f"\n        {k}: {v}" for k, v in fields.items())
    return (
        f"config:\n  aws:region: us-east-2\n  planner:cluster:\n    availability_zone: us-east-2b\n"
        f"    node_groups:\n      - {body.lstrip()}\n"
    )


@pytest.mark.parametrize(
    "value",
    [
        "!!bool maybe",  # SafeConstructor raised KeyError
        "!!int twelve",  # ValueError (was caught), kept as text
        "0x" + "f" * 5000,  # an int Python refuses to print (over 4,300 digits): was a ValueError in the message
        "!!timestamp 2026-13-45",
        "!!float 1e99999",
    ],
)
def test_unbuildable_scalars_are_wrong_types_not_crashes(workdir: Path, value: str) -> None:
    result, _ = plan_file(workdir, _cluster_with(count=value))
    assert result.code == 2 and "count: expected a positive integer" in result.err


@pytest.mark.parametrize("key", ["!!bool maybe", "!!int twelve", "? 0x" + "f" * 5000 + "\n        "])
def test_unbuildable_keys_are_unknown_keys_not_crashes(workdir: Path, key: str) -> None:
    """`? KEY` is YAML's explicit key, the only way to write a key over 1,024 characters."""
    result, _ = plan_file(workdir, _cluster_with(**{key: "1"}))
    assert result.code == 2 and "unknown key" in result.err


@pytest.mark.parametrize(
    "field,value",
    [
        ("instance_type", '"trn2.48xlarge\\nplanner: fake.yaml:1: injected"'),
        ("availability_zone", '"us-east-1a\\u2028x"'),
        ('"na\\nme"', "1"),
    ],
)
def test_line_breaks_in_keys_and_values_stay_on_one_line(workdir: Path, field: str, value: str) -> None:
    """A value or key holding a line break must not split (or forge) a problem line."""
    result, path = plan_file(workdir, _cluster_with(**{field: value}))
    assert result.code == 2
    assert all(line.startswith(f"planner: {path}") for line in result.err.splitlines())
    assert "\\n" in result.err or "\\u2028" in result.err


def test_loader_drops_its_cache_between_documents() -> None:
    """The shared YAML constructor kept every scalar node ever built (memory grew per file)."""
    for f in BUNDLED:
        yamlload.load(f.read_bytes(), str(f))
    assert not yamlload._constructor.constructed_objects


# --- as a separate process, as CI runs it --------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
        hostile.laughs(10, 10, "list").encode(),
        b'config: {aws:region: us-east-2, planner:cluster: {availability_zone: "\\ud800"}}\n',
        _cluster_with(instance_type='"trn2\\u202e\\U0001f680\\nx"').encode(),
    ],
    ids=["binary", "bomb", "surrogate-escape", "unicode-and-newline"],
)
def test_hostile_files_in_a_process(workdir: Path, content: bytes) -> None:
    path = workdir / "Pulumi.process.yaml"
    path.write_bytes(content)
    result = run_process("plan", str(path))
    assert_clean(result, path)
    assert result.code == 2


def test_unicode_free_text_in_a_process(workdir: Path) -> None:
    """Free-text fields (suppression reasons, S3 prefixes) reach stdout intact in every format.

    Right-to-left text is fine; a bidi override (U+202E) is refused (issue 14, item 1:
    tests/test_hardening.py), since it reorders what a reviewer sees.
    """
    path = workdir / "Pulumi.unicode.yaml"
    path.write_text(
        _cluster_with() + "    suppress:\n      - rule: placement-group\n"
        '        reason: "\u00e9quipe \U0001f680 \u05e9\u05dc\u05d5\u05dd"\n',
        encoding="utf-8",
    )
    result = run_process("plan", str(path), "--format", "json")
    assert_clean(result, path)
    assert result.code in (0, 1)
