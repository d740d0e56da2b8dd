"""`--create-baseline FILE` and `--baseline FILE` (docs/output.md#baselines): the findings accepted
today stop failing the run, new ones fail as usual, and entries no longer found are listed as fixed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, no_plan, run_cli

INVALID = ROOT / "tests" / "invalid_stacks"
# both on demand trn2.48xlarge, which has no price in the book: a price-unknown warning each, too
EFA = "Pulumi.efa-recommended.yaml"  # a warning (efa-recommended) at node_groups[0].efa
LUSTRE = "Pulumi.lustre-capacity.yaml"  # an error (lustre-capacity) at lustre.storage_capacity_gib
INFO = "Pulumi.capacity-block-duration.yaml"  # an info finding alone: never recorded

EXPECTED = """{
  "version": 1,
  "command": "plan",
  "stacks": [
    {
      "stack": "efa-recommended",
      "file": "stacks/Pulumi.efa-recommended.yaml",
      "findings": [
        {
          "rule": "efa-recommended",
          "path": "planner:cluster.node_groups[0].efa"
        },
        {
          "rule": "price-unknown",
          "path": "planner:cluster.node_groups[0].instance_type"
        }
      ]
    },
    {
      "stack": "lustre-capacity",
      "file": "stacks/Pulumi.lustre-capacity.yaml",
      "findings": [
        {
          "rule": "lustre-capacity",
          "path": "planner:cluster.lustre.storage_capacity_gib"
        },
        {
          "rule": "price-unknown",
          "path": "planner:cluster.node_groups[0].instance_type"
        }
      ]
    }
  ]
}
"""


def _stacks(tmp_path: Path, *names: str) -> Path:
    d = tmp_path / "stacks"
    d.mkdir()
    for name in names:
        shutil.copy(INVALID / name, d / name)
    return d


def _created(tmp_path: Path, *names: str) -> Path:
    _stacks(tmp_path, *names)
    result = run_cli("plan", "stacks", "--create-baseline", "base.json", "--format", "json", cwd=tmp_path)
    assert result.code == 0, result.err
    return tmp_path / "base.json"


def _findings(out: str) -> dict[tuple[str, str], dict[str, object]]:
    return {(s["stack"], f["rule"]): f for s in json.loads(out)["stacks"] for f in s["findings"]}


def test_create_baseline_writes_sorted_json_of_errors_and_warnings_and_exits_0(tmp_path: Path) -> None:
    """The error and the warning, not the info finding; exit 0 though an error is found (each is shown as
    baselined, so the report's own verdict agrees); the same bytes whatever order the stacks are named in."""
    _stacks(tmp_path, EFA, LUSTRE, INFO)
    table = run_cli("plan", "stacks", "--create-baseline", "base.json", cwd=tmp_path)
    assert table.code == 0, table.err
    written = (tmp_path / "base.json").read_text(encoding="utf-8")
    assert written == EXPECTED
    assert "baselined lustre-capacity  stacks/Pulumi.lustre-capacity.yaml:13" in table.out
    assert "0 errors, 0 warnings, 1 info, 4 baselined" in table.out and "exit 0" in table.out
    again = run_cli(
        "plan", f"stacks/{LUSTRE}", f"stacks/{INFO}", f"./stacks/{EFA}", "--create-baseline", "again.json", cwd=tmp_path
    )
    assert again.code == 0, again.err
    assert (tmp_path / "again.json").read_bytes() == written.encode("utf-8")


def test_baselined_findings_do_not_fail_and_survive_line_moves(tmp_path: Path) -> None:
    base = _created(tmp_path, EFA, LUSTRE)
    for name in (EFA, LUSTRE):  # lines above every key: each finding moves down three lines
        path = tmp_path / "stacks" / name
        path.write_text("# moved\n#\n# by a review\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    result = run_cli("plan", "stacks", "--baseline", str(base), "--format", "json", cwd=tmp_path)
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    assert doc["baseline"] == str(base)
    found = _findings(result.out)
    lustre = found[("lustre-capacity", "lustre-capacity")]
    assert lustre["line"] == 16 and lustre["suppressed"] is True
    assert lustre["suppression"] == {"kind": "baseline", "reason": f"recorded in the baseline {base}"}
    assert found[("efa-recommended", "efa-recommended")]["suppression"]["kind"] == "baseline"  # type: ignore[index]
    assert all("baseline_fixed" not in s for s in doc["stacks"])
    table = run_cli("plan", "stacks", "--baseline", str(base), cwd=tmp_path)
    assert "baselined lustre-capacity  stacks/Pulumi.lustre-capacity.yaml:16" in table.out
    assert " ".join(table.out.split()).endswith("exit 0 (no unsuppressed errors)")
    # --fail-on warning: the baselined warning does not fail either
    assert run_cli("plan", "stacks", "--baseline", str(base), "--fail-on", "warning", cwd=tmp_path).code == 0


def test_new_findings_fail_as_usual(tmp_path: Path) -> None:
    """A new finding in a baselined stack, and a stack the baseline does not know: both fail the run."""
    base = _created(tmp_path, EFA)
    efa = tmp_path / "stacks" / EFA
    efa.write_text(
        efa.read_text(encoding="utf-8")
        + "    lustre:\n      deployment_type: SCRATCH_2\n      storage_capacity_gib: 3600\n",
        encoding="utf-8",
    )
    result = run_cli("plan", "stacks", "--baseline", str(base), "--format", "json", cwd=tmp_path)
    assert result.code == 1, result.err
    found = _findings(result.out)
    assert found[("efa-recommended", "efa-recommended")]["suppressed"] is True
    assert found[("efa-recommended", "lustre-capacity")]["suppressed"] is False
    efa.write_text((INVALID / EFA).read_text(encoding="utf-8"), encoding="utf-8")
    shutil.copy(INVALID / LUSTRE, tmp_path / "stacks" / LUSTRE)
    other = run_cli("plan", "stacks", "--baseline", str(base), "--format", "json", cwd=tmp_path)
    assert other.code == 1
    assert _findings(other.out)[("lustre-capacity", "lustre-capacity")]["suppressed"] is False


def test_entries_no_longer_found_are_listed_as_fixed(tmp_path: Path) -> None:
    """One line each, in every format; the exit code is not changed by them. A stack this run does not
    plan is not judged: its entries are not fixed."""
    base = _created(tmp_path, EFA, LUSTRE)
    efa = tmp_path / "stacks" / EFA
    efa.write_text(efa.read_text(encoding="utf-8").replace("efa: false", "efa: true"), encoding="utf-8")
    saved = tmp_path / "report.json"
    result = run_cli("plan", "stacks", "--baseline", str(base), "--format", "json", "-o", str(saved), cwd=tmp_path)
    assert result.code == 0, result.err
    by_name = {s["stack"]: s for s in json.loads(saved.read_text(encoding="utf-8"))["stacks"]}
    assert by_name["efa-recommended"]["baseline_fixed"] == [
        {"rule": "efa-recommended", "path": "planner:cluster.node_groups[0].efa"}
    ]
    assert "baseline_fixed" not in by_name["lustre-capacity"]

    def shown(fmt: str) -> list[str]:
        out = run_cli("render", str(saved), "--format", fmt, cwd=tmp_path).out
        return [line for line in out.splitlines() if "efa-recommended" in line and "ixed" in line]

    assert shown("table") == ["    fixed    efa-recommended  planner:cluster.node_groups[0].efa"]
    assert shown("markdown") == [
        ":white_check_mark: Fixed since the baseline: `efa-recommended` at `planner:cluster.node_groups[0].efa`"
    ]
    assert shown("github") == [
        "::notice file=stacks/Pulumi.efa-recommended.yaml,title=fixed since the baseline%3A efa-recommended::"
        "baseline entry of 'efa-recommended' at planner:cluster.node_groups[0].efa matches no finding any more: fixed"
    ]
    sarif = json.loads(run_cli("render", str(saved), "--format", "sarif", cwd=tmp_path).out)["runs"][0]
    (note,) = sarif["invocations"][0]["toolConfigurationNotifications"]
    assert note["associatedRule"] == {"id": "efa-recommended"} and note["level"] == "note"
    # lustre-capacity, and the price-unknown of both stacks (baselined too)
    (lustre,) = [r for r in sarif["results"] if r["ruleId"] == "lustre-capacity"]
    assert {r["ruleId"] for r in sarif["results"]} == {"lustre-capacity", "price-unknown"}
    assert lustre["baselineState"] == "unchanged"
    assert lustre["suppressions"] == [{"kind": "external", "justification": f"recorded in the baseline {base}"}]
    assert "1 fixed since the baseline" in run_cli("render", str(saved), cwd=tmp_path).out
    alone = run_cli("plan", f"stacks/{LUSTRE}", "--baseline", str(base), "--format", "json", cwd=tmp_path)
    assert all("baseline_fixed" not in s for s in json.loads(alone.out)["stacks"])


def test_a_new_finding_is_new_in_sarif(tmp_path: Path) -> None:
    base = _created(tmp_path, EFA)
    shutil.copy(INVALID / LUSTRE, tmp_path / "stacks" / LUSTRE)
    result = run_cli("plan", "stacks", "--baseline", str(base), "--format", "sarif", cwd=tmp_path)
    assert result.code == 1
    states = {r["ruleId"]: r["baselineState"] for r in json.loads(result.out)["runs"][0]["results"]}
    # price-unknown: baselined in efa-recommended, new in lustre-capacity (one state per rule id here: the last)
    assert {k: v for k, v in states.items() if k != "price-unknown"} == {
        "efa-recommended": "unchanged",
        "lustre-capacity": "new",
    }


GOOD_ENTRY = '{"stack": "s", "file": "f", "findings": [{"rule": "efa-recommended", "path": ""}]}'


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("{", ":1: not JSON (Expecting property name enclosed in double quotes); expected a planner baseline"),
        ("[]", ": expected an object, not []; expected a planner baseline"),
        ('{"version": 2, "command": "plan", "stacks": []}', ": version: a baseline of version 2; this planner reads"),
        (
            '{"version": 1, "command": "plan"}',
            ": stacks: missing; expected a list of stacks, each {stack, file, findings}",
        ),
        (
            '{"version": 1, "command": "preflight", "stacks": []}',
            ": command: 'preflight'; expected 'plan' (a baseline of `planner plan`",
        ),
        ('{"version": 1, "command": "plan", "stacks": {}}', ": stacks: expected a list of stacks"),
        (
            '{"version": 1, "command": "plan", "stacks": [' + GOOD_ENTRY.replace('"s"', "7") + "]}",
            ": stacks[0].stack: expected the stack's name (a string), not 7",
        ),
        (
            '{"version": 1, "command": "plan", "stacks": ['
            + GOOD_ENTRY.replace("efa-recommended", "efa-recomended")
            + "]}",
            ": stacks[0].findings[0].rule: unknown rule 'efa-recomended' (did you mean 'efa-recommended'?)",
        ),
        (
            '{"version": 1, "command": "plan", "stacks": [' + GOOD_ENTRY.replace(', "path": ""', "") + "]}",
            ": stacks[0].findings[0].path: missing; expected the model path of the finding",
        ),
        (
            '{"version": 1, "command": "plan", "stacks": [' + GOOD_ENTRY.replace('"path"', '"line": 3, "path"') + "]}",
            ": stacks[0].findings[0].line: unknown key; expected only rule, resource, path",
        ),
    ],
)
def test_a_bad_baseline_file_is_one_line_naming_the_file_and_key(tmp_path: Path, content: str, said: str) -> None:
    _stacks(tmp_path, EFA)
    (tmp_path / "bad.json").write_text(content, encoding="utf-8")
    result = run_cli("plan", "stacks", "--baseline", "bad.json", "--format", "json", cwd=tmp_path)
    assert result.code == 2 and no_plan(result.out)
    (line,) = result.err.strip().splitlines()
    assert line.startswith("planner: bad.json") and said in line, line
    assert "Traceback" not in result.err


def test_a_missing_or_unwritable_baseline_is_one_line(tmp_path: Path) -> None:
    _stacks(tmp_path, EFA)
    missing = run_cli("plan", "stacks", "--baseline", "nowhere.json", cwd=tmp_path)
    assert missing.code == 2
    assert missing.err.strip() == "planner: nowhere.json: cannot read the baseline: No such file or directory"
    folder = run_cli("plan", "stacks", "--create-baseline", "stacks", cwd=tmp_path)
    assert (
        folder.code == 2
        and folder.err.strip() == "planner: stacks: --create-baseline: is a folder; expected a file path"
    )
    same = run_cli("plan", "stacks", "--create-baseline", "x.json", "-o", "x.json", cwd=tmp_path)
    assert same.code == 2 and not (tmp_path / "x.json").exists()
    assert "--create-baseline: x.json is also --output" in same.err
    (tmp_path / "y.json").write_text("{}", encoding="utf-8")
    read = run_cli("plan", "stacks", "--baseline", "y.json", "-o", "y.json", cwd=tmp_path)
    assert read.code == 2 and (tmp_path / "y.json").read_text(encoding="utf-8") == "{}"
    assert read.err.strip() == "planner: <command line>: --baseline: y.json is also --output; expected another file"
    both = run_cli("plan", "stacks", "--create-baseline", "x.json", "--baseline", "y.json", cwd=tmp_path)
    assert both.code == 2 and "not allowed with argument" in both.err


def test_input_problems_write_no_baseline(tmp_path: Path) -> None:
    d = _stacks(tmp_path, EFA)
    (d / "Pulumi.broken.yaml").write_text("config:\n  planner:cluster: {availability_zone: 3}\n", encoding="utf-8")
    result = run_cli("plan", "stacks", "--create-baseline", "base.json", cwd=tmp_path)
    assert result.code == 2 and not (tmp_path / "base.json").exists()


def test_diff_fails_only_on_added_findings_the_baseline_does_not_record(tmp_path: Path) -> None:
    """`diff --fail-on` fails on an added finding; with the baseline that records it, it does not, and the
    added finding is shown as baselined."""
    (tmp_path / "base").mkdir()
    shutil.copy(INVALID / EFA, tmp_path / "base" / EFA)
    (tmp_path / "base" / EFA).write_text(
        (INVALID / EFA).read_text(encoding="utf-8").replace("efa: false", "efa: true"), encoding="utf-8"
    )
    (tmp_path / "head").mkdir()
    shutil.copy(INVALID / EFA, tmp_path / "head" / EFA)
    plain = run_cli("diff", "base", "head", "--fail-on", "warning", cwd=tmp_path)
    assert plain.code == 1, plain.err
    made = run_cli("plan", "head", "--create-baseline", "base.json", cwd=tmp_path)
    assert made.code == 0, made.err
    judged = run_cli(
        "diff", "base", "head", "--fail-on", "warning", "--baseline", "base.json", "--format", "json", cwd=tmp_path
    )
    assert judged.code == 0, judged.err
    doc = json.loads(judged.out)
    (added,) = doc["diff"]["stacks"][0]["findings_added"]
    assert added["rule"] == "efa-recommended" and added["suppression"]["kind"] == "baseline"
    table = run_cli("diff", "base", "head", "--baseline", "base.json", cwd=tmp_path)
    assert "(baselined: does not fail the run)" in " ".join(table.out.split())
    # `diff` has no --create-baseline: `plan` writes the baseline
    assert run_cli("diff", "base", "head", "--create-baseline", "x.json", cwd=tmp_path).code == 2


def test_preflight_reads_only_a_preflight_baseline(tmp_path: Path) -> None:
    """Refused before any AWS call: a baseline of `plan` does not hold `preflight`'s checks."""
    pytest.importorskip("boto3")
    base = _created(tmp_path, EFA)
    result = run_cli("preflight", "stacks", "--baseline", str(base), cwd=tmp_path)
    assert result.code == 2
    assert result.err.strip().endswith(
        "command: 'plan'; expected 'preflight' (a baseline of `planner preflight`, which "
        "`planner preflight --create-baseline FILE` writes)"
    )


def test_a_program_resource_is_keyed_by_its_urn_and_path_without_positions() -> None:
    """A read-back's lists follow the program's resources: a resource added before another moves its
    node group or note along the list, not its URN, so positions are no part of the key."""
    from planner.core.document import ReportedFinding
    from planner.core.planning.baseline import location

    urn = "urn:pulumi:dev::p::aws:autoscaling/group:Group::trainers"
    f = ReportedFinding("readback-gap", "warning", "m", "app.py", 8, "planner:cluster.notes[3]", resource=urn)
    assert location(f) == (urn, "planner:cluster.notes")
    g = ReportedFinding("efa-recommended", "warning", "m", "s.yaml", 8, "planner:cluster.node_groups[1].efa")
    assert location(g) == ("", "planner:cluster.node_groups[1].efa")
