"""The PR-facing formats: SARIF (schema-valid), GitHub annotations (escaped), Markdown
(summary, findings, cost, a well-formed Mermaid diagram), and determinism of all of them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from planner.core.document import codec
from planner.core.document.cost_section import CostReport
from planner.core.input.stack_files import load_stack
from planner.core.model.findings import Finding
from planner.core.planning.pipeline import PlanOptions, StackPlan, plan_stack
from planner.core.render import github, markdown, sarif, table
from tests.conftest import document, run_cli

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

# Errors, a warning, a file suppression and (with --suppress) a command-line one.
MIXED = """
availability_zone: us-east-2b
node_groups:
  - name: ultra
    instance_type: trn2u.48xlarge
    ultraservers: 6
    purchase: capacity-block
  - name: dev
    instance_type: trn2.48xlarge
    count: 2
    public_ip: true
    efa: false
placement_group: cluster
lustre:
  deployment_type: SCRATCH_2
  storage_capacity_gib: 3600
  s3_import_path: s3://bucket-a/x"<y>|z
suppress:
  - rule: capacity-block-reservation
    reason: "block booked, id added after purchase"
"""


@pytest.fixture
def mixed(stack_file) -> str:
    return str(stack_file(MIXED, name="mixed"))


def _plans(path: str, suppress: tuple[str, ...] = ("efa-recommended",)) -> list[StackPlan]:
    return [plan_stack(load_stack(path), PlanOptions(suppress=suppress))]


# --- SARIF -------------------------------------------------------------------------------


def test_sarif_validates_against_the_2_1_0_schema(mixed: str) -> None:
    doc = json.loads(sarif.render(document(_plans(mixed))))
    jsonschema.Draft4Validator(SCHEMA).validate(doc)
    bundled = json.loads(
        sarif.render(document([plan_stack(load_stack(str(p))) for p in sorted((ROOT / "stacks").glob("*.yaml"))]))
    )
    jsonschema.Draft4Validator(SCHEMA).validate(bundled)


def test_sarif_rules_results_and_suppressions(mixed: str) -> None:
    from planner.core import rules

    run = json.loads(sarif.render(document(_plans(mixed))))["runs"][0]
    descriptors = run["tool"]["driver"]["rules"]
    assert [d["id"] for d in descriptors] == list(rules.registry())
    lustre = next(d for d in descriptors if d["id"] == "lustre-capacity")
    assert lustre["helpUri"].startswith("https://docs.aws.amazon.com/fsx/")
    assert lustre["defaultConfiguration"] == {"level": "error"}
    assert lustre["help"]["text"] == rules.get("lustre-capacity").remediation
    assert all(d["helpUri"].startswith("https://") for d in descriptors)

    by_rule = {r["ruleId"]: r for r in run["results"]}
    res = by_rule["lustre-capacity"]
    assert res["level"] == "error" and descriptors[res["ruleIndex"]]["id"] == "lustre-capacity"
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == Path(mixed).as_uri()  # absolute path given -> file URI
    assert Path(mixed).read_text().splitlines()[loc["region"]["startLine"] - 1].strip() == "storage_capacity_gib: 3600"
    assert by_rule["capacity-block-reservation"]["suppressions"] == [
        {"kind": "inSource", "justification": "block booked, id added after purchase"}
    ]
    assert by_rule["efa-recommended"]["suppressions"][0]["kind"] == "external"
    assert "suppressions" not in res


def test_sarif_uri_is_the_relative_path_as_given() -> None:
    res = run_cli("plan", "tests/invalid_stacks/Pulumi.lustre-efa.yaml", "--format", "sarif")
    (result,) = [r for r in json.loads(res.out)["runs"][0]["results"] if r["ruleId"] == "lustre-efa"]
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "tests/invalid_stacks/Pulumi.lustre-efa.yaml"},
        "region": {"startLine": 14},
    }
    assert res.code == 1


# --- GitHub annotations ------------------------------------------------------------------


def test_github_annotation_escaping() -> None:
    f = Finding("lustre-capacity", "error", "50% done\nnext: a,b\r", "dir,x/Pulumi.a:b.yaml", 7)
    assert github.annotation(f) == (
        "::error file=dir%2Cx/Pulumi.a%3Ab.yaml,line=7,title=lustre-capacity::50%25 done%0Anext: a,b%0D"
    )
    assert github.annotation(Finding("r", "info", "m", "f.yaml")) == "::notice file=f.yaml,title=r::m"
    assert (
        github.annotation(Finding("r", "error", "m", "f.yaml", 3, suppressed=True))
        == "::notice file=f.yaml,line=3,title=r (suppressed)::m"
    )


def test_github_format_one_line_per_finding(mixed: str) -> None:
    plans = _plans(mixed)
    lines = github.render(document(plans)).splitlines()
    findings = plans[0].findings
    assert len(lines) == len(findings) + 1
    assert all(re.match(r"^::(error|warning|notice) file=[^:]+,line=\d+,title=[^:]+::", line) for line in lines[:-1])
    assert sum(line.startswith("::error ") for line in lines) == sum(
        1 for f in findings if f.severity == "error" and not f.suppressed
    )
    assert lines[-1].startswith("planner: 1 stack, ")


# --- Markdown ----------------------------------------------------------------------------


def _mermaid_blocks(text: str) -> list[list[str]]:
    return [block.splitlines() for block in re.findall(r"```mermaid\n(.*?)\n```", text, re.S)]


def _check_mermaid(lines: list[str]) -> set[str]:
    """Well-formed for Mermaid's flowchart grammar as we use it; returns the node ids."""
    assert lines[0] == "flowchart TB"
    depth, ids = 0, set()
    node = re.compile(r'^\s*(subgraph )?([A-Za-z][A-Za-z0-9]*)(\["|\[\("|\(\[")(.*?)("\]|"\)\]|"\]\))$')
    edge = re.compile(r"^\s*([A-Za-z][A-Za-z0-9]*) (---|-\.-)\|[^|\"]+\| ([A-Za-z][A-Za-z0-9]*)$")
    for line in lines[1:]:
        if line.strip() == "end":
            depth -= 1
            assert depth >= 0
            continue
        m = node.match(line)
        if m:
            assert m.group(2) not in ids, f"duplicate id {m.group(2)}"
            ids.add(m.group(2))
            assert '"' not in m.group(4), f"unescaped quote in label: {line}"
            depth += 1 if m.group(1) else 0
            continue
        e = edge.match(line)
        assert e, f"not a node, subgraph, end or edge: {line!r}"
        assert e.group(1) in ids and e.group(3) in ids
    assert depth == 0
    return ids


def test_markdown_comment(mixed: str) -> None:
    text = markdown.render(document(_plans(mixed)))
    assert text.startswith(markdown.MARKER + "\n## :x: planner: 1 stack, ")
    assert "| `mixed` | us-east-2 | 26 | 416 |" in text
    assert "| :x: error | `lustre-capacity` |" in text
    assert "**Fix:** " in text
    assert (
        "~~warning~~ suppressed | `capacity-block-reservation`" in text
        and "block booked, id added after purchase" in text
    )
    (diagram,) = _mermaid_blocks(text)
    ids = _check_mermaid(diagram)
    assert {"az0", "efa0", "g0", "g1", "fsx", "s3"} <= ids
    joined = "\n".join(diagram)
    assert "6 UltraServers" in joined and "... 2 more UltraServers" in joined and "NeuronLink-v3" in joined
    assert "#quot;#lt;y#gt;" in joined  # the S3 path's quote and brackets are escaped


def test_markdown_cells_are_escaped() -> None:
    from planner.core.render.digest import md_cell

    # the line break is shown (escaped), never a break: a cell stays one cell
    assert md_cell('a|b <script>\n"c" & d') == 'a\\|b &lt;script&gt;\\\\n"c" &amp; d'


def test_markdown_for_bundled_stacks_is_well_formed() -> None:
    res = run_cli("plan", "--format", "markdown")
    assert res.code == 0
    blocks = _mermaid_blocks(res.out)
    assert len(blocks) == 3
    for b in blocks:
        _check_mermaid(b)
    assert 'subgraph efa0["EFA fabric, placement group: cluster"]' in res.out


def test_markdown_renders_the_cost() -> None:
    from planner.core.render.cost_report import markdown as cost_markdown
    from planner.core.render.cost_report import usd

    (plan,) = _plans(str(ROOT / "stacks" / "Pulumi.p5en-train.yaml"), ())
    assert plan.cost is not None
    text = markdown.render(document([plan]))
    cost = codec.load(CostReport, plan.cost.to_json())
    assert cost_markdown(cost) in text  # the cost code's own rendering, whole
    assert f"| {usd(cost.total_usd)} |" in text.split("###")[0]  # and the total in the overview


# --- table, determinism --------------------------------------------------------------------


def test_table_shows_fix_and_reason(mixed: str) -> None:
    text = table.render(document(_plans(mixed)))
    flat = " ".join(text.split())  # wrapped to the width: compare the words
    assert (
        "fix: set lustre.storage_capacity_gib: 4800 (the nearest valid capacity above 3,600 GiB), or set "
        "lustre.storage_capacity_gib: 2400 (to stay under it)" in flat
    )
    assert "reason: block booked, id added after purchase" in flat
    assert "reason: suppressed on the command line (--suppress efa-recommended)" in flat
    assert "2 suppressed; cost" in flat and flat.endswith("exit 1 (unsuppressed errors)")


@pytest.mark.parametrize("fmt", ["table", "json", "markdown", "sarif", "github"])
def test_same_input_same_bytes(mixed: str, fmt: str) -> None:
    first = run_cli("plan", mixed, "stacks", "--format", fmt, "--suppress", "efa-recommended")
    second = run_cli("plan", mixed, "stacks", "--format", fmt, "--suppress", "efa-recommended")
    assert first.code == second.code == 1
    assert first.out == second.out and first.out
