"""Issue 14, "Harden the pull-request surfaces": one regression test (or a few) per item.

planner runs on pull requests from people the repository does not fully trust; its output
goes into a PR comment, workflow annotations and code scanning. Each test below names the
item of the issue it closes. The properties over arbitrary text are in
tests/test_hardening_properties.py.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, no_plan, run_cli, run_process
from test_preflight_helpers import StubbedAws, fake_session, isolate

from planner.core.input import stack_files as parse

TRN2_DEV = "stacks/Pulumi.trn2-dev.yaml"
GOOD_GROUP = "name: a\n    instance_type: trn2.48xlarge\n    count: 2"


def yq(text: str) -> str:
    """`text` as a YAML double-quoted scalar (JSON escapes are YAML escapes)."""
    return json.dumps(text)


def cluster(tmp_path: Path, body: str, region: str = "us-east-2", name: str = "t") -> Path:
    """A stack file whose planner:cluster is `body` (YAML, indented by the caller as 4 spaces)."""
    path = tmp_path / f"Pulumi.{name}.yaml"
    path.write_text(f"config:\n  aws:region: {region}\n  planner:cluster:\n{body}", encoding="utf-8")
    return path


def base(**over: str) -> str:
    """A valid cluster with any key replaced by a YAML scalar (already quoted)."""
    values = {
        "availability_zone": "us-east-2b",
        "name": "a",
        "instance_type": "trn2.48xlarge",
        "count": "2",
        "purchase": "on-demand",
        "reservation": None,
        "s3": None,
        "reason": None,
        "rule": "efa-recommended",
        "vpc": None,
        "subnet": None,
        "lustre_az": None,
        "deployment_type": "SCRATCH_2",
        "precision": "bf16",
        "placement": "cluster",
    }
    values.update(over)
    out = [
        f"    availability_zone: {values['availability_zone']}",
        f"    placement_group: {values['placement']}",
        "    node_groups:",
        f"      - name: {values['name']}",
        f"        instance_type: {values['instance_type']}",
        f"        count: {values['count']}",
        f"        purchase: {values['purchase']}",
    ]
    if values["reservation"]:
        out.append(f"        capacity_reservation_id: {values['reservation']}")
    out += ["    lustre:", f"      deployment_type: {values['deployment_type']}", "      storage_capacity_gib: 1200"]
    if values["s3"]:
        out.append(f"      s3_import_path: {values['s3']}")
    if values["lustre_az"]:
        out.append(f"      availability_zone: {values['lustre_az']}")
    out += [
        "    workload:",
        "      parameters: 7e9",
        "      tokens: 1e11",
        "      mfu: 0.4",
        f"      precision: {values['precision']}",
    ]
    if values["reason"]:
        out += ["    suppress:", f"      - rule: {values['rule']}", f"        reason: {values['reason']}"]
    if values["vpc"] or values["subnet"]:
        out += [
            "    network:",
            f"      vpc_id: {values['vpc'] or 'vpc-0123456789abcdef0'}",
            f"      subnet_id: {values['subnet'] or 'subnet-0123456789abcdef0'}",
        ]
    return "\n".join(out) + "\n"


def one_line_errors(res: Any) -> list[str]:
    """stderr as lines, each asserted to be a planner message (never a forged line or a traceback)."""
    lines = res.err.splitlines()
    assert "Traceback" not in res.err
    for line in lines:
        assert line.startswith(("planner: ", "planner ")), line
    return lines


# --- item 1: control characters are refused in every string the schema accepts ------------

CONTROL = [
    "\r",
    "\n",
    "\x1b",
    "\x00",
    "\x7f",
    "\x85",
    "\x9b",
    "\u202e",
    "\u202a",
    "\u2066",
    "\u2069",
    "\u200e",
    "\u200f",
    "\u061c",
    "\u2028",
    "\u2029",
    "\t",
]
STRING_FIELDS = {
    "availability_zone": lambda v: base(availability_zone=v),
    "name": lambda v: base(name=v),
    "instance_type": lambda v: base(instance_type=v),
    "purchase": lambda v: base(purchase=v),
    "capacity_reservation_id": lambda v: base(reservation=v),
    "s3_import_path": lambda v: base(s3=v),
    "lustre.availability_zone": lambda v: base(lustre_az=v),
    "deployment_type": lambda v: base(deployment_type=v),
    "precision": lambda v: base(precision=v),
    "placement_group": lambda v: base(placement=v),
    "suppress.rule": lambda v: base(rule=v, reason="ok"),
    "suppress.reason": lambda v: base(reason=v),
    "vpc_id": lambda v: base(vpc=v),
    "subnet_id": lambda v: base(subnet=v),
}
VALID = {
    "availability_zone": "us-east-2b",
    "name": "a",
    "instance_type": "trn2.48xlarge",
    "purchase": "on-demand",
    "capacity_reservation_id": "cr-0123456789abcdef0",
    "s3_import_path": "s3://bucket/prefix",
    "lustre.availability_zone": "us-east-2b",
    "deployment_type": "SCRATCH_2",
    "precision": "bf16",
    "placement_group": "cluster",
    "suppress.rule": "efa-recommended",
    "suppress.reason": "accepted",
    "vpc_id": "vpc-0123456789abcdef0",
    "subnet_id": "subnet-0123456789abcdef0",
}


@pytest.mark.parametrize("field", sorted(STRING_FIELDS))
@pytest.mark.parametrize("ch", ["\r", "\n", "\u202e"])
def test_item1_control_characters_are_refused_in_every_string_field(tmp_path: Path, field: str, ch: str) -> None:
    valid = cluster(tmp_path, STRING_FIELDS[field](yq(VALID[field])), name="ok")
    assert run_cli("plan", str(valid), "--format", "json").code in (0, 1)  # the value itself is fine
    bad = cluster(tmp_path, STRING_FIELDS[field](yq(VALID[field] + ch + "# forged")))
    res = run_cli("plan", str(bad), "--format", "markdown")
    assert res.code == 2 and no_plan(res.out) and "\n# forged" not in res.out  # the problem, on one line
    lines = one_line_errors(res)
    assert len(lines) >= 1


@pytest.mark.parametrize("ch", CONTROL)
def test_item1_every_control_and_bidi_character_is_refused(tmp_path: Path, ch: str) -> None:
    res = run_cli("plan", str(cluster(tmp_path, base(reason=yq(f"ok{ch}x")))))
    assert res.code == 2
    (line,) = one_line_errors(res)
    assert "suppress[0].reason: contains the control character" in line


def test_item1_carriage_return_in_the_s3_path_cannot_break_the_markdown(tmp_path: Path) -> None:
    """The issue's example: CR closed the Mermaid fence and rendered headings, <img>, </details>."""
    evil = "s3://bucket/x\r```\r# Approved\r<img src=x onerror=alert(1)>\r</details>"
    res = run_cli("plan", str(cluster(tmp_path, base(s3=yq(evil)))), "--format", "markdown")
    assert res.code == 2 and "s3_import_path: contains the control character \\r" in res.err
    # printable hostile text is accepted and rendered inert, inside the diagram and the tables
    ok = "s3://bucket/x```# Approved<img src=x></details>"
    res = run_cli("plan", str(cluster(tmp_path, base(s3=yq(ok)), name="ok")), "--format", "markdown")
    assert res.code in (0, 1)
    assert "<img" not in res.out and res.out.count("</details>") == res.out.count("<details")
    assert not any(line.startswith("# ") for line in res.out.splitlines())


def test_item1_reports_escape_what_reaches_them_anyway(tmp_path: Path) -> None:
    """A file name is not a schema string: it may hold anything, and every report escapes it."""
    folder = tmp_path / "x\r\n::error file=a::forged\u202e"
    folder.mkdir()
    path = folder / "Pulumi.evil.yaml"
    path.write_text((ROOT / TRN2_DEV).read_text())
    for fmt in ("table", "json", "markdown", "sarif", "github"):
        res = run_cli("plan", str(path), "--format", fmt)
        assert res.code in (0, 1), res.err
        for line in res.out.splitlines():
            assert not line.lstrip().startswith("::") or (
                fmt == "github" and re.match(r"::(error|warning|notice) ", line)
            )
            assert "\u202e" not in line
        assert "\r" not in res.out
        if fmt in ("json", "sarif"):
            json.loads(res.out)


# --- item 2: user text with line feeds never starts a line of its own -----------------------


def test_item2_suppress_on_the_command_line_stays_on_one_line() -> None:
    res = run_cli("plan", TRN2_DEV, "--suppress", "efa\n::error file=x::forged")
    assert res.code == 2
    (line,) = one_line_errors(res)
    assert "efa\\n::error" in line


def test_item2_compare_instance_type_stays_on_one_line() -> None:
    res = run_cli(
        "compare",
        "--parameters",
        "7e9",
        "--tokens",
        "1e11",
        "--mfu",
        "0.4",
        "--instances",
        "1",
        "--instance-type",
        "trn2\n::error::forged",
    )
    assert res.code == 2
    one_line_errors(res)


def test_item2_stack_option_and_argparse_errors_stay_on_one_line() -> None:
    res = run_cli("plan", "--format", "x\n::error::forged")
    assert res.code == 2
    one_line_errors(res)
    res = run_cli("plan", "--program", "examples/ultraserver-training", "--stack", "x\n::error::forged")
    assert res.code == 2
    one_line_errors(res)


@pytest.mark.parametrize("key", ["name", "source", "note", "assumption"])
def test_item2_price_book_text_with_line_feeds_is_refused(tmp_path: Path, key: str) -> None:
    entry = {
        "instance_type": "trn2.48xlarge",
        "region": "us-east-2",
        "purchase": "on-demand",
        "usd_per_hour": 40,
        "source": "https://example.test/prices",
        "as_of": "2026-01-01",
    }
    book: dict[str, Any] = {"name": "mine", "instances": [entry]}
    if key == "name":
        book["name"] = "x\n::error::forged"
    else:
        entry[key] = "x\n::error::forged"
    path = tmp_path / "book.yaml"
    path.write_text(json.dumps(book))
    res = run_cli("plan", TRN2_DEV, "--price-book", str(path))
    assert res.code == 2 and no_plan(res.out) and "\n::error" not in res.out
    (line,) = one_line_errors(res)
    assert "contains the control character \\n" in line


def test_item2_a_price_book_file_name_with_a_line_feed_stays_on_one_line(tmp_path: Path) -> None:
    path = tmp_path / "b\n::error::forged.yaml"  # the book's default name is its file name
    path.write_text(
        json.dumps(
            {
                "instances": [
                    {
                        "instance_type": "trn2.48xlarge",
                        "region": "us-east-2",
                        "purchase": "on-demand",
                        "usd_per_hour": 40,
                        "source": "https://example.test/prices",
                        "as_of": "2026-01-01",
                    }
                ]
            }
        )
    )
    for fmt in ("table", "github", "markdown"):
        res = run_cli("plan", TRN2_DEV, "--price-book", str(path), "--format", fmt)
        assert res.code in (0, 1), res.err
        assert not [line for line in res.out.splitlines() if line.startswith("::error::forged")]


# --- item 3: the Markdown comment renders no mention, link, image or HTML from user text ------

HOSTILE = "@octo-team [click](https://evil.example) ![x](https://evil.example/i.png) <img src=x> </details> www.evil.example #12"


CODE_SPAN = re.compile(r"(?<![\\`])(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def assert_inert(markdown: str, allowed_tags: tuple[str, ...] = ()) -> None:
    """No mention, link, image, autolink, issue reference or unknown HTML outside code spans
    (GitHub renders none of them inside one)."""
    markdown = CODE_SPAN.sub("CODE", markdown.replace("<!-- planner-report -->", ""))
    assert not re.search(r"(?<![`\w])@\w", markdown), "a mention"
    assert not re.search(r"(?<!\\)\][(\[]", markdown), "a link or image"
    assert not re.search(r"(?<!\\)!(?<!\\)\[", markdown), "an image"
    assert "https://evil" not in markdown and "www.evil" not in markdown, "an autolink"
    tags = set(re.findall(r"</?[A-Za-z][^>]*>", markdown))
    known = {
        "<details open>",
        "<summary>",
        "</summary>",
        "</details>",
        "<br>",
        "<br/>",
        "<details>",
        "<b>",
        "</b>",
        "<code>",
        "</code>",
        *allowed_tags,
    }
    assert tags <= known, tags - known
    assert "#12" not in markdown, "an issue reference"


def test_item3_suppression_reason_is_inert_in_the_comment(tmp_path: Path) -> None:
    # SCRATCH_1 has no price in the default book: price-unknown fires (tests/test_price_coverage.py)
    plain = run_cli("plan", str(cluster(tmp_path, base(deployment_type="SCRATCH_1"), name="plain")), "--format", "json")
    fired = json.loads(plain.out)["stacks"][0]["findings"][0]["rule"]  # suppress a rule that fires here
    path = cluster(tmp_path, base(rule=fired, reason=yq(HOSTILE), deployment_type="SCRATCH_1"))
    res = run_cli("plan", str(path), "--format", "markdown")
    assert res.code == 0, res.err
    assert "octo-team" in res.out and "suppressed" in res.out  # shown, as text
    assert_inert(res.out)


def test_item3_price_book_text_is_inert_in_the_cost_section(tmp_path: Path) -> None:
    entry = {
        "instance_type": "trn2.48xlarge",
        "region": "us-east-2",
        "purchase": "on-demand",
        "usd_per_hour": 40,
        "source": HOSTILE,
        "as_of": "2026-01-01",
        "note": HOSTILE,
        "assumption": HOSTILE,
    }
    path = tmp_path / "book.yaml"
    path.write_text(json.dumps({"name": HOSTILE, "instances": [entry]}))
    for command in (["plan", TRN2_DEV], ["diff", TRN2_DEV, TRN2_DEV]):
        res = run_cli(*command, "--price-book", str(path), "--format", "markdown")
        assert res.code in (0, 1), res.err
        assert "octo-team" in res.out
        assert_inert(res.out)


def test_item3_md_inert_escapes_each_construct() -> None:
    from planner.core.text.safe import html_inert, md_code, md_inert

    assert md_inert("<b>&</b>") == "&lt;b&gt;&amp;&lt;/b&gt;"
    assert md_inert("[a](b) ![c](d)") == "\\[a\\](b) !\\[c\\](d)"
    assert md_inert("@team a@b.c") == "`@`team a`@`b.c"
    assert md_inert("https://x www.y") == "`https://x` `www.`y"  # a whole URL in one code span
    assert md_inert("a|b `c` *d* _e_ ~f~") == "a\\|b \\`c\\` \\*d\\* \\_e\\_ \\~f\\~"
    assert md_code("a`b|c") == "``a`b\\|c``"
    assert html_inert('<i>"@x"</i>') == "&lt;i&gt;&quot;<code>@</code>x&quot;&lt;/i&gt;"


def test_item3_error_lines_in_the_actions_comment_are_fenced(tmp_path: Path) -> None:
    """The Action posts standard error with the report: the errors quote the PR's text, so
    they sit in a fenced block (where GitHub renders nothing) that no error line can close."""
    from test_action import _repo, run_action

    repo = _repo(tmp_path)
    (repo / "stacks" / "Pulumi.evil.yaml").write_text(
        "config:\n  aws:region: us-east-2\n  planner:cluster:\n    availability_zone: us-east-2b\n"
        '    node_groups:\n      - name: a\n        instance_type: "<img src=x> @octo-team [x](https://evil.example)"\n'
        "        count: 1\n",
        encoding="utf-8",
    )
    res = run_action(repo, tmp_path)
    assert res["outputs"]["exit-code"] == "2"
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    fence = comment.index("````text\n")
    errors = comment[fence + len("````text\n") :]
    assert errors.endswith("````\n") and "<img src=x>" in errors  # shown as text, inside the fence
    assert "<img" not in comment[:fence]
    for line in errors.splitlines()[:-1]:
        assert line.startswith("planner"), line


# --- item 4: no echo of a file that is not a mapping; no links out of a scanned folder --------

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # 40 characters, shaped like a GitHub token


def test_item4_a_symlinked_stack_in_a_folder_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "token.txt"
    secret.write_text(SECRET + "\n")
    folder = tmp_path / "stacks"
    folder.mkdir()
    (folder / "Pulumi.leak.yaml").symlink_to(secret)
    res = run_cli("plan", str(folder))
    assert res.code == 2 and SECRET[:8] not in res.err
    assert "is a link to a file outside the folder; refused" in res.err


def test_item4_a_file_that_is_not_a_mapping_is_not_echoed(tmp_path: Path) -> None:
    secret = tmp_path / "token.txt"
    secret.write_text(SECRET + "\n")
    link = tmp_path / "Pulumi.leak.yaml"
    link.symlink_to(secret)
    res = run_cli("plan", str(link))  # named explicitly: read, but nothing of it is shown
    assert res.code == 2 and SECRET[:6] not in res.err
    assert "expected a mapping, got a string" in res.err
    book = run_cli("plan", TRN2_DEV, "--price-book", str(secret))
    assert book.code == 2 and SECRET[:6] not in book.err


def test_item4_wrong_values_are_shown_only_as_far_as_needed(tmp_path: Path) -> None:
    res = run_cli("plan", str(cluster(tmp_path, base(placement=yq(SECRET)))))
    assert res.code == 2 and SECRET not in res.err and SECRET[:21] in res.err
    assert len(parse._kind("x" * 1000)) <= parse.SHOWN_CHARS + 2


# --- item 5: a key left empty is a type error, not a dropped node group ---------------------


@pytest.mark.parametrize("key,value", [("count", ""), ("efa", ""), ("ultraservers", "")])
def test_item5_null_count_efa_ultraservers_is_an_error(tmp_path: Path, key: str, value: str) -> None:
    itype = "trn2u.48xlarge" if key == "ultraservers" else "trn2.48xlarge"
    size = "" if key == "count" or key == "ultraservers" else "\n        count: 2"
    body = (
        f"    availability_zone: us-east-2b\n    node_groups:\n      - name: a\n        instance_type: {itype}"
        f"{size}\n        {key}:{value}\n        purchase: capacity-block\n"
    )
    res = run_cli("plan", str(cluster(tmp_path, body)))
    assert res.code == 2, res.out
    assert f"node_groups[0].{key}: expected" in res.err and "got nothing" in res.err


# --- item 6: patterns are full matches: a trailing newline fails ----------------------------


@pytest.mark.parametrize(
    "rx,good",
    [
        (parse._NAME, "a-b"),
        (parse._REGION, "us-east-2"),
        (parse._RESERVATION, "cr-0123456789abcdef0"),
        (parse._VPC, "vpc-0123456789abcdef0"),
        (parse._SUBNET, "subnet-0123456789abcdef0"),
        (parse._S3_URL, "s3://bucket/x"),
        (parse._STACK_FILE, "Pulumi.dev.yaml"),
    ],
)
def test_item6_patterns_refuse_a_trailing_newline(rx: re.Pattern[str], good: str) -> None:
    assert rx.fullmatch(good)
    assert not rx.fullmatch(good + "\n")
    assert parse.stack_name("Pulumi.dev.yaml\n") is None


@pytest.mark.parametrize(
    "field", ["availability_zone", "name", "capacity_reservation_id", "vpc_id", "subnet_id", "s3_import_path"]
)
def test_item6_values_ending_in_a_newline_are_refused(tmp_path: Path, field: str) -> None:
    res = run_cli("plan", str(cluster(tmp_path, STRING_FIELDS[field](yq(VALID[field] + "\n")))))
    assert res.code == 2


def test_item6_region_ending_in_a_newline_is_refused(tmp_path: Path) -> None:
    res = run_cli("plan", str(cluster(tmp_path, base(), region=yq("us-east-2\n"))))
    assert res.code == 2 and "aws:region" in res.err
    assert (
        run_cli(
            "compare",
            "--parameters",
            "7e9",
            "--tokens",
            "1e11",
            "--mfu",
            "0.4",
            "--instances",
            "1",
            "--region",
            "us-east-2\n",
        ).code
        == 2
    )


# --- item 7: no traceback, no exit 1 for unusable input ----------------------------------------


def test_item7_huge_workloads_give_findings_not_infinity(tmp_path: Path) -> None:
    body = base().replace("parameters: 7e9", "parameters: 1e30").replace("tokens: 1e11", "tokens: 1e30")
    for fmt in ("json", "sarif", "table", "markdown", "github"):
        res = run_cli("plan", str(cluster(tmp_path, body)), "--format", fmt)
        assert res.code in (0, 1), res.err
    res = run_cli("plan", str(cluster(tmp_path, base().replace("mfu: 0.4", "mfu: 5e-324"))))
    assert res.code == 2 and "workload.mfu: expected a fraction of peak between 0.01 and 1" in res.err


@pytest.mark.parametrize(
    "args",
    [
        ["--parameters", "1e308", "--tokens", "1e308", "--mfu", "0.4", "--instances", "1"],
        ["--parameters", "7e9", "--tokens", "1e11", "--mfu", "0.4", "--instances", "9" * 400],
        ["--parameters", "7e9", "--tokens", "1e11", "--mfu", "0.4", "--instances", "0"],
        ["--parameters", "7e9", "--tokens", "1e11", "--mfu", "5e-324", "--instances", "1"],
    ],
)
def test_item7_compare_numbers_out_of_range_exit_2(args: list[str]) -> None:
    res = run_cli("compare", *args)
    assert res.code == 2
    (line,) = one_line_errors(res)
    assert "9" * 30 not in line  # a 400-digit value is not echoed whole


def test_item7_an_unreadable_folder_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    folder = tmp_path / "stacks"
    folder.mkdir()

    def denied(path: Any) -> list[str]:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "listdir", denied)
    res = run_cli("plan", str(folder))
    assert res.code == 2 and "cannot list the folder: Permission denied" in res.err


def test_item7_standard_output_full_or_closed_exits_2() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "planner", "plan", "stacks"],
            cwd=ROOT,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
        )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "planner: <standard output>: cannot write the report: No space left on device"
    ]
    proc = subprocess.run(
        f"'{sys.executable}' -m planner plan stacks >&-",
        shell=True,
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    proc = subprocess.run(
        f"'{sys.executable}' -m planner plan stacks -o /dev/null >&-",
        shell=True,
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode in (0, 1) and proc.stderr == ""  # the report went to --output: a closed stdout is no error


def test_item7_update_readme_write_failure_leaves_the_readme_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# x\n<!-- rules:start -->\nold\n<!-- rules:end -->\n")
    before = readme.read_text()

    def full(*_: Any, **__: Any) -> Any:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    res = run_cli("rules", "--update-readme", str(readme))
    assert res.code == 2 and "cannot write: No space left on device" in res.err
    assert readme.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md"]  # no temporary file left


def test_item7_credential_process_printing_non_json_is_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    isolate(monkeypatch, tmp_path, credentials=False)
    config = tmp_path / "no-aws-config"
    config.write_text("[default]\ncredential_process = echo this-is-not-json\n")
    res = run_process("preflight", TRN2_DEV)
    assert res.code == 2 and "Traceback" not in res.err
    assert res.err.count("\n") == 1 and "cannot load AWS credentials" in res.err


def test_item7_an_unexpected_exception_is_one_line_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug, or a --program raising BaseException, must not exit 1 (which means "findings")."""

    class Odd(BaseException):
        pass

    def boom(*_: Any, **__: Any) -> Any:
        raise Odd("line one\n::error::forged")

    monkeypatch.setattr("planner.core.planning.pipeline.plan_stacks", boom)
    res = run_cli("plan", TRN2_DEV)
    assert res.code == 2
    (line,) = one_line_errors(res)
    assert line.startswith("planner: internal error: Odd: line one\\n::error")


# --- item 8: reports are written whole or not at all; devices are not read ------------------


def test_item8_a_failed_output_write_keeps_the_previous_report(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    assert run_cli("plan", TRN2_DEV, "--format", "json", "-o", str(out)).code in (0, 1)
    good = out.read_text()
    json.loads(good)
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, fh: Any):
            self.fh = fh

        def __enter__(self) -> Any:
            return self

        def __exit__(self, *exc: Any) -> None:
            self.fh.close()

        def write(self, text: str) -> int:
            self.fh.write(text[: len(text) // 2])
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: Full(real_fdopen(fd, *a, **k)))
    res = run_cli("plan", TRN2_DEV, "--format", "json", "-o", str(out))
    assert res.code == 2 and "--output: cannot write: No space left on device" in res.err
    assert out.read_text() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_item8_output_keeps_the_file_mode(tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    out.write_text("old")
    out.chmod(0o640)
    assert run_cli("plan", TRN2_DEV, "-o", str(out)).code in (0, 1)
    assert (out.stat().st_mode & 0o777) == 0o640 and out.read_text().startswith("Stack trn2-dev")


def test_item8_devices_and_fifos_are_not_read(tmp_path: Path) -> None:
    """Refused by kind before any read (how fast: `make bench`, bench/bounds.py)."""
    res = run_cli("rules", "--update-readme", "/dev/zero")
    assert res.code == 2 and "not a regular file" in res.err
    fifo = tmp_path / "Pulumi.fifo.yaml"
    os.mkfifo(fifo)
    res = run_cli("plan", str(fifo))
    assert res.code == 2 and "not a regular file" in res.err
    res = run_cli("plan", TRN2_DEV, "--price-book", "/dev/zero")
    assert res.code == 2


def test_item8_oversized_readme_is_refused(tmp_path: Path) -> None:
    from planner.commands.rules import README_MAX_BYTES

    big = tmp_path / "README.md"
    big.write_bytes(b"x" * (README_MAX_BYTES + 1))
    res = run_cli("rules", "--update-readme", str(big))
    assert res.code == 2 and f"expected at most {README_MAX_BYTES}" in res.err


# --- item 10: sane lower bounds ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "snippet,message",
    [
        ("    schedule:\n      hours: 5e-324\n", "schedule.hours: expected at least 1"),
        ("    budget:\n      total_usd: 5e-324\n", "budget.total_usd: expected at least 0.01"),
        ("    budget:\n      monthly_usd: 0.001\n", "budget.monthly_usd: expected at least 0.01"),
    ],
)
def test_item10_tiny_hours_and_budgets_are_refused(tmp_path: Path, snippet: str, message: str) -> None:
    res = run_cli("plan", str(cluster(tmp_path, base() + snippet)))
    assert res.code == 2 and message in res.err


def test_item10_compare_deadline_has_a_lower_bound() -> None:
    res = run_cli("compare", "--parameters", "7e9", "--tokens", "1e11", "--mfu", "0.4", "--deadline-hours", "1e-300")
    assert res.code == 2 and "--deadline-hours: expected a number from 1 to 1e+30" in res.err


# --- item 11: every AWS call is bounded -------------------------------------------------------------


def test_item11_clients_have_timeouts_and_a_retry_budget() -> None:
    from planner.aws import account

    client = account.Clients(session=fake_session()).client("ec2", "us-east-2")
    config = client.meta.config
    assert (config.connect_timeout, config.read_timeout) == (account.CONNECT_TIMEOUT, account.READ_TIMEOUT)
    assert config.retries == {"mode": "standard", "total_max_attempts": account.MAX_ATTEMPTS}


def test_item11_a_hung_credential_process_is_cut_by_the_deadline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    isolate(monkeypatch, tmp_path, credentials=False)
    (tmp_path / "no-aws-config").write_text("[default]\ncredential_process = sleep 30\n")
    res = run_process("preflight", TRN2_DEV, "--aws-timeout", "1")  # how soon it ends: `make bench`
    assert res.code == 2 and "Traceback" not in res.err and res.err.count("\n") == 1
    assert "no answer from AWS within 1 s" in res.err


@pytest.fixture
def silent_endpoint() -> Any:
    """A TCP server that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join()
    for s in held:
        s.close()
    server.close()


def test_item11_a_silent_endpoint_ends_in_findings_within_the_deadline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, silent_endpoint: str
) -> None:
    isolate(monkeypatch, tmp_path)
    # 3 s, not 1: the deadline also counts loading boto3's credentials, which a loaded CI machine
    # can take a second over; the endpoint then holds the first call until the deadline (how soon
    # the command ends after it: `make bench`, bench/bounds.py)
    res = run_process(
        "preflight", TRN2_DEV, "--aws-timeout", "3", "--format", "json", env={"AWS_ENDPOINT_URL": silent_endpoint}
    )
    assert res.code == 1 and "Traceback" not in res.err, res.err
    rules = {f["rule"] for s in json.loads(res.out)["stacks"] for f in s["findings"]}
    assert rules == {"preflight-aws-error"}
    assert "no answer from AWS within 3 s" in res.out


def test_item11_live_prices_fall_back_within_the_deadline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, silent_endpoint: str
) -> None:
    isolate(monkeypatch, tmp_path)
    res = run_process(
        "plan",
        TRN2_DEV,
        "--live-prices",
        "--aws-timeout",
        "1",
        "--format",
        "json",
        env={"AWS_ENDPOINT_URL": silent_endpoint},
    )
    assert res.code in (0, 1) and "live prices unavailable" in res.err and "within 1 s" in res.err
    json.loads(res.out)


def test_item11_the_deadline_stops_later_calls_at_once() -> None:
    from planner.aws import deadline
    from planner.aws.account import Account
    from planner.aws.errors import AwsCallError

    calls: list[str] = []
    account = Account(lambda service, region: calls.append(service))
    with deadline.limit(1.0):
        deadline._state["end"] = time.monotonic() - 1  # as if the time were up
        with pytest.raises(AwsCallError) as info:
            account.offered_zones("us-east-2", "trn2.48xlarge")
    assert info.value.code == "Deadline" and calls == []
    deadline.check()  # outside the block there is no deadline


# --- item 12: an HTTP 200 that AWS did not send is an AWS error, not an answer -----------------------


def _portal(client: Any, body: bytes) -> None:
    from botocore.awsrequest import AWSResponse

    class Raw:
        def stream(self, **_: Any) -> Any:
            yield body

    client.meta.events.register_first(
        "before-send", lambda request, **_: AWSResponse(request.url, 200, {"Content-Type": "text/html"}, Raw())
    )


@pytest.mark.parametrize(
    "body",
    [
        b"<html><head><title>Wi-Fi</title></head><body>Sign in</body></html>",
        b"<html><body><p>Sign in<br></body></html>",
        b"",
    ],
)
def test_item12_a_captive_portal_gives_preflight_aws_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, body: bytes
) -> None:
    from planner.aws.account import Account, Clients
    from planner.aws.preflight_run import preflight_stack

    isolate(monkeypatch, tmp_path)
    clients = Clients(session=fake_session())

    def client(service: str, region: str) -> Any:
        made = clients.client(service, region)
        if not getattr(made, "_portal", False):
            _portal(made, body)
            made._portal = True
        return made

    stack = parse.load_stack("tests/invalid_stacks/Pulumi.capacity-block-reservation.yaml")
    plan = preflight_stack(stack, Account(client))
    rules = {f.rule for f in plan.findings}
    assert rules == {"preflight-aws-error"}, [f.message for f in plan.findings]
    assert all("captive portal" in f.message for f in plan.findings)


def test_item12_a_captive_portal_gives_no_live_price(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from planner.aws import live_prices
    from planner.aws.account import Clients

    isolate(monkeypatch, tmp_path)
    client = Clients(session=fake_session()).client("pricing", "us-east-1")
    _portal(client, b"<html>portal</html>")
    cache = live_prices.PriceCache(live_prices.cache_path(), dt.datetime(2026, 11, 29, tzinfo=dt.UTC))
    got = live_prices.fetch(live_prices.PriceNeeds(frozenset({("trn2.48xlarge", "us-east-2")})), lambda: client, cache)
    assert got.failure and "captive portal" in got.failure
    assert got.missing == () and cache.entries == {}  # not cached as "no price" for 24 h


# --- item 13: a corrupt live-price cache entry is discarded, with a warning --------------------------


def test_item13_a_corrupt_cache_entry_is_discarded_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from test_live_prices import ec2_product, expect_ec2

    from planner.aws import live_prices
    from planner.core.cost import load_price_book

    isolate(monkeypatch, tmp_path)
    now = dt.datetime(2026, 11, 29, 15, 0, tzinfo=dt.UTC)
    path = Path(live_prices.cache_path())
    path.parent.mkdir(parents=True)
    bad = {
        "instance_type": "trn2.48xlarge",
        "region": "us-east-2",
        "purchase": "on-demand",
        "usd_per_hour": "lots",
        "source": "x",
        "as_of": "2026-11-29",
    }
    path.write_text(
        json.dumps(
            {
                "version": live_prices.CACHE_VERSION,
                "entries": {"ec2 trn2.48xlarge us-east-2": {"fetched_at": now.isoformat(), "entry": bad}},
            }
        )
    )
    aws = StubbedAws()
    expect_ec2(aws, "trn2.48xlarge", "us-east-2", [ec2_product("trn2.48xlarge", "us-east-2", "37.5", "T")])
    warnings: list[str] = []
    needs = live_prices.PriceNeeds(frozenset({("trn2.48xlarge", "us-east-2")}))
    book = live_prices.live_book(
        load_price_book(None), needs, lambda: aws.client("pricing", "us-east-1"), now, warnings.append
    )
    assert book.instance("trn2.48xlarge", "us-east-2", "on-demand").usd == 37.5
    assert any(str(path) in w and "discarded the entry 'ec2 trn2.48xlarge us-east-2'" in w for w in warnings), warnings
    saved = json.loads(path.read_text())["entries"]["ec2 trn2.48xlarge us-east-2"]["entry"]
    assert saved["usd_per_hour"] == 37.5


def test_item13_a_corrupt_cache_file_is_named_in_a_warning(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from planner.aws import live_prices

    isolate(monkeypatch, tmp_path)
    path = Path(live_prices.cache_path())
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    cache = live_prices.PriceCache(str(path), dt.datetime(2026, 11, 29, tzinfo=dt.UTC))
    assert cache.entries == {} and cache.problems == [
        f"discarded the price cache {path}: unreadable (not JSON); prices are fetched again"
    ]


# --- item 14: component arguments are checked before the first resource ----------------------------


def _component_error(declare: Any) -> Any:
    from planner.components import ClusterInputError
    from planner.testing import MotoMocks, run

    mocks = MotoMocks("us-east-2")
    with pytest.raises(ClusterInputError) as info:
        run(declare, mocks)
    assert mocks.resources == []
    return info.value


def _args(**over: Any) -> Any:
    from planner.components import ClusterArgs, NodeGroupArgs

    values: dict[str, Any] = {"availability_zone": "us-east-2b", "node_groups": [NodeGroupArgs(name="t", count=2)]}
    values.update(over)
    return ClusterArgs(**values)


@pytest.mark.parametrize(
    "make,key",
    [
        (lambda: None, "args"),
        (lambda: _args(node_groups="x"), "node_groups"),
        (lambda: _args(node_groups=["x"]), "node_groups[0]"),
        (lambda: _args(region="mars-north-1"), "region"),
        (lambda: _args(region=7), "region"),
        (lambda: _args(root_volume_gib=0), "root_volume_gib"),
        (lambda: _args(root_volume_gib=20000), "root_volume_gib"),
        (lambda: _args(root_volume_gib="500"), "root_volume_gib"),
        (lambda: _args(tags={"aws:owner": "me"}), "tags[aws:owner]"),
        (lambda: _args(tags={"k" * 129: "v"}), "tags[" + "k" * 40 + "]"),
        (lambda: _args(tags="team=ml"), "tags"),
        (lambda: _args(security_group_ids="sg-0123456789abcdef0"), "security_group_ids"),
        (lambda: _args(lustre="SCRATCH_2"), "lustre"),
        (lambda: _args(suppress=None), "suppress"),
    ],
)
def test_item14_cluster_arguments_are_checked_by_name(make: Any, key: str) -> None:
    from planner.components import Trn2Cluster

    err = _component_error(lambda: Trn2Cluster("x", make()))
    assert any(p.key == key for p in err.problems), [str(p) for p in err.problems]


@pytest.mark.parametrize(
    "vpc,subnet,key",
    [
        ("10.0.0.0/16", "10.1.0.0/19", "subnet_cidr"),
        ("10.0.0.0/8", "10.0.0.0/19", "vpc_cidr"),
        ("10.0.0.1/16", "10.0.0.0/19", "vpc_cidr"),
        ("fd00::/56", "fd00::/64", "vpc_cidr"),
    ],
)
def test_item14_network_cidrs_must_nest_in_the_vpc(vpc: str, subnet: str, key: str) -> None:
    from planner.components import EfaNetwork, EfaNetworkArgs

    err = _component_error(
        lambda: EfaNetwork(
            "n", EfaNetworkArgs(availability_zone="us-east-2b", vpc_cidr=vpc, subnet_cidr=subnet, region="us-east-2")
        )
    )
    assert any(p.key == key for p in err.problems), [str(p) for p in err.problems]


def test_item14_reservation_ids_and_unknown_deployment_arguments() -> None:
    from planner.components import NodeGroupArgs, Trn2Cluster, from_config

    err = _component_error(
        lambda: Trn2Cluster(
            "x",
            _args(
                node_groups=[
                    NodeGroupArgs(name="t", count=2, purchase="capacity-block", capacity_reservation_id="cr-123\n")
                ]
            ),
        )
    )
    assert any(p.key.endswith("node_groups[0].capacity_reservation_id") for p in err.problems)
    err = _component_error(
        lambda: from_config(
            "x",
            {
                "availability_zone": "us-east-2b",
                "node_groups": [{"name": "t", "instance_type": "trn2.48xlarge", "count": 2}],
            },
            "us-east-2",
            root_volume=10,
        )
    )
    assert [p.key for p in err.problems] == ["root_volume"]


# --- item 15: SARIF artifact URIs are percent-encoded ------------------------------------------------


def test_item15_sarif_uri_is_percent_encoded(tmp_path: Path) -> None:
    folder = tmp_path / "a #b%c"
    folder.mkdir()
    path = folder / "Pulumi.x.yaml"  # SCRATCH_1: unpriced, so a finding (price-unknown) has a location
    path.write_text((ROOT / TRN2_DEV).read_text().replace("SCRATCH_2", "SCRATCH_1"))
    res = run_cli("plan", "Pulumi.x.yaml", "--format", "sarif", cwd=folder)
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for r in json.loads(res.out)["runs"][0]["results"]
        for loc in r["locations"]
    }
    assert uris == {"Pulumi.x.yaml"}
    res = run_cli("plan", str(path), "--format", "sarif")
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for r in json.loads(res.out)["runs"][0]["results"]
        for loc in r["locations"]
    }
    assert uris == {
        "file://" + str(folder).replace(" ", "%20").replace("#", "%23").replace("%c", "%25c") + "/Pulumi.x.yaml"
    }
    from planner.core.render.sarif import _uri

    assert _uri("stacks/a b#c%d.yaml") == "stacks/a%20b%23c%25d.yaml"
    assert _uri("HEAD:stacks/Pulumi.x.yaml") == "HEAD%3Astacks/Pulumi.x.yaml"


@pytest.mark.parametrize("value", ["trn2.48xlarge=1e308", "trn2.48xlarge@us-east-2\n=3", "trn2.48xlarge=nan"])
def test_item6_item7_price_overrides_are_bounded_and_full_matched(value: str) -> None:
    res = run_cli("plan", TRN2_DEV, "--price", value)
    assert res.code == 2 and no_plan(res.out)
    (line,) = one_line_errors(res)
    assert "--price" in line
