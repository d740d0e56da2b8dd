"""Issue 14, "Done when": arbitrary Unicode in every string field, every output format.

Hypothesis feeds text built from hostile pieces (workflow commands, Markdown links and
images, HTML, mentions, issue references, backticks, pipes) and arbitrary Unicode
(control, bidi, separator and unassigned characters included) into every string the
stack schema and the price book accept, into file names, and into command-line values.
Whatever the input, for every format (table, json, markdown, sarif, github; and the
diff's table, markdown and json):

- planner exits 0, 1 or 2; on 2 nothing is written to stdout and every stderr line is one
  planner message;
- no line starts with `::` unless planner wrote it (a GitHub annotation of its own);
- nothing unprintable reaches the output (no CR, no bidi override, no line separator);
- JSON and SARIF parse;
- the Markdown holds no raw HTML, link, image, autolink, mention or issue reference
  outside code (where GitHub renders none).

Runs derandomized with modest example counts, so CI sees the same inputs every time.
"""

from __future__ import annotations

import itertools
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from conftest import ROOT, no_plan, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_hardening import STRING_FIELDS, VALID, assert_inert

FORMATS = ("table", "json", "markdown", "sarif", "github")
DIFF_FORMATS = ("table", "markdown", "json")
PROPERTY = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)

PIECES = st.sampled_from(
    [
        "@octo-team",
        "[x](https://evil.example)",
        "![i](https://evil.example/i.png)",
        "<img src=x onerror=alert(1)>",
        "</details>",
        "<details open>",
        "`",
        "```",
        "|",
        "::error file=x,line=1::forged",
        "\n::warning::forged",
        "\r\n# Approved",
        "\r",
        "\n",
        "\u202e",
        "\u2066",
        "\u200f",
        "\u061c",
        "\u2028",
        "\u2029",
        "\x85",
        "\x1b[31m",
        "\x00",
        "\t",
        "www.evil.example",
        "#1",
        "a@b.co",
        "&lt;",
        "&#64;x",
        "\\",
        "*",
        "_",
        "~~",
        "<!--",
        "-->",
        "%0A::error::x",
        "[ref]: https://evil.example",
        "<https://evil.example>",
        "\U0001f680",
        "\ud800",
        ":x:",
        "- ",
        "1. ",
        "> ",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=6)), min_size=1, max_size=6).map("".join)
_COUNTER = itertools.count()


def yaml_quote(text: str) -> str:
    """`text` as a YAML double-quoted scalar: printable characters as they are, the rest escaped."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch.isprintable() and not 0xD800 <= code <= 0xDFFF and code != 0xFEFF:
            out.append(ch)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


ANNOTATION = re.compile(r"::(error|warning|notice) file=[^:,\n]*(,line=\d+)?,title=[^:,\n]*::.*")
FENCE = re.compile(r"^```[a-z]*\n.*?^```$", re.M | re.S)


def check_output(fmt: str, out: str) -> None:
    """The properties every report holds, whatever the input."""
    assert out.replace("\n", "").isprintable(), [c for c in out if not c.isprintable() and c != "\n"][:3]
    for line in out.split("\n"):
        if line.lstrip().startswith("::"):
            assert fmt == "github" and ANNOTATION.fullmatch(line), line
    if fmt in ("json", "sarif"):
        data = json.loads(out)
        if fmt == "sarif":
            assert data["version"] == "2.1.0" and isinstance(data["runs"][0]["results"], list)
    if fmt == "markdown":
        assert_inert(FENCE.sub("FENCE", out))


def check_run(res: Any, fmt: str) -> None:
    assert res.code in (0, 1, 2), res.err
    assert "Traceback" not in res.err
    for line in res.err.splitlines():
        assert line.startswith("planner"), line
    assert res.err.replace("\n", "").isprintable()
    if res.code == 2 and not res.err.startswith("planner: warning"):
        assert no_plan(res.out)  # nothing, or the report of the input problems alone
    if res.out:
        check_output(fmt, res.out)


def workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix=f"hardening-{next(_COUNTER)}-"))


def write_stack(folder: Path, body: str, name: str = "t") -> Path:
    path = folder / f"Pulumi.{name}.yaml"
    path.write_text(f"config:\n  aws:region: us-east-2\n  planner:cluster:\n{body}", encoding="utf-8")
    return path


FIELDS = {
    **STRING_FIELDS,
    # a key of the user's own (an unknown key) and the region, beside the schema's string values
    "a key": lambda v: STRING_FIELDS["name"]('"a"').replace("        count:", f"        {v}: 1\n        count:"),
    "aws:region": lambda v: STRING_FIELDS["name"]('"a"'),
}
VALUES = {**VALID, "a key": "", "aws:region": "us-east-2"}


@PROPERTY
@given(field=st.sampled_from(sorted(FIELDS)), text=TEXT, keep_valid=st.booleans())
def test_arbitrary_text_in_every_stack_string_field(field: str, text: str, keep_valid: bool) -> None:
    value = VALUES[field] + text if keep_valid else text
    folder = workdir()
    head = write_stack(folder, FIELDS[field](yaml_quote(value)))
    if field == "aws:region":
        head.write_text(head.read_text().replace("aws:region: us-east-2", f"aws:region: {yaml_quote(value)}"))
    for fmt in FORMATS:
        check_run(run_cli("plan", str(head), "--format", fmt), fmt)
    base = write_stack(folder, STRING_FIELDS["name"]('"a"'), name="base")
    for fmt in DIFF_FORMATS:
        check_run(run_cli("diff", str(base), str(head), "--format", fmt), fmt)


@PROPERTY
@given(text=TEXT)
def test_arbitrary_printable_reason_reaches_every_report_inert(text: str) -> None:
    """A reason without control characters is accepted: it is shown in every report, inert."""
    reason = "".join(c for c in text if c.isprintable()) or "x"
    folder = workdir()
    unpriced = "deployment_type: SCRATCH_1"  # no price in the default book: price-unknown fires
    plain = write_stack(
        folder, STRING_FIELDS["name"]('"a"').replace("deployment_type: SCRATCH_2", unpriced), name="plain"
    )
    fired = json.loads(run_cli("plan", str(plain), "--format", "json").out)["stacks"][0]["findings"][0]["rule"]
    path = write_stack(
        folder,
        STRING_FIELDS["suppress.reason"](yaml_quote(reason))
        .replace("efa-recommended", fired)
        .replace("deployment_type: SCRATCH_2", unpriced),
    )
    for fmt in FORMATS:
        res = run_cli("plan", str(path), "--format", fmt)
        if reason.strip():
            assert res.code == 0, res.err
            assert fmt != "markdown" or "suppressed" in res.out
        check_run(res, fmt)


@PROPERTY
@given(key=st.sampled_from(["name", "source", "note", "assumption", "basis"]), text=TEXT, printable=st.booleans())
def test_arbitrary_text_in_every_price_book_string(key: str, text: str, printable: bool) -> None:
    if printable:
        text = "".join(c for c in text if c.isprintable()) or "x"
    entry = {
        "instance_type": "trn2.48xlarge",
        "region": "us-east-2",
        "purchase": "on-demand",
        "usd_per_hour": "40",
        "source": "https://example.test/prices",
        "as_of": "2026-01-01",
    }
    book: dict[str, Any] = {"name": "mine", "instances": [entry]}
    if key == "name":
        book["name"] = text
    elif key == "basis":
        book["derived"] = [
            {"instance_type": "trn2.48xlarge", "purchase": "spot", "from": "trn2.48xlarge", "basis": text}
        ]
    else:
        entry[key] = text
    lines = [f"name: {yaml_quote(book['name'])}", "instances:"]
    lines += ["  - " + "\n    ".join(f"{k}: {yaml_quote(str(v))}" for k, v in entry.items())]
    if "derived" in book:
        lines += ["derived:", "  - " + "\n    ".join(f"{k}: {yaml_quote(v)}" for k, v in book["derived"][0].items())]
    path = workdir() / "book.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    stack = str(ROOT / "stacks" / "Pulumi.trn2-dev.yaml")
    for fmt in FORMATS:
        check_run(run_cli("plan", stack, "--price-book", str(path), "--format", fmt), fmt)
    for fmt in DIFF_FORMATS:
        check_run(run_cli("diff", stack, stack, "--price-book", str(path), "--format", fmt), fmt)


NAME_TEXT = TEXT.map(lambda t: "".join(c for c in t if c not in "/\x00" and not 0xD800 <= ord(c) <= 0xDFFF)[:60] or "x")


@PROPERTY
@given(folder_name=NAME_TEXT)
def test_arbitrary_file_and_folder_names_in_every_report(folder_name: str) -> None:
    folder = workdir() / folder_name
    folder.mkdir()
    head = folder / "Pulumi.x.yaml"
    head.write_text((ROOT / "tests" / "invalid_stacks" / "Pulumi.efa-single-az.yaml").read_text())
    explicit = folder / f"Pulumi.{folder_name}.yaml"  # named explicitly, the stack's name is the file's
    explicit.write_text((ROOT / "stacks" / "Pulumi.trn2-dev.yaml").read_text())
    for fmt in FORMATS:
        check_run(run_cli("plan", str(head), str(explicit), "--format", fmt), fmt)
    for fmt in DIFF_FORMATS:
        check_run(run_cli("diff", str(ROOT / "stacks" / "Pulumi.trn2-dev.yaml"), str(explicit), "--format", fmt), fmt)


@PROPERTY
@given(option=st.sampled_from(["--suppress", "--price-book", "--format", "--fail-on", "--output"]), text=TEXT)
def test_arbitrary_command_line_values_give_one_line_errors(option: str, text: str) -> None:
    text = "".join(c for c in text if c != "\x00" and not 0xD800 <= ord(c) <= 0xDFFF) or "x"
    if option == "--output":
        text = str(workdir() / "missing" / text.replace("/", "_"))
    res = run_cli("plan", "stacks", option, text)
    check_run(res, "table")
    compare = run_cli(
        "compare",
        "--parameters",
        "7e9",
        "--tokens",
        "1e11",
        "--mfu",
        text,
        "--instance-type",
        text,
        "--region",
        text,
        "--instances",
        text,
    )
    check_run(compare, "table")
