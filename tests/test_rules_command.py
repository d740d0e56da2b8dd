"""`planner rules`, the registry's metadata, and the documentation's rule reference generated from it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from planner.commands import rules as reference
from planner.core import rules
from planner.core.model.findings import SEVERITIES
from tests.conftest import run_cli, run_process

ROOT = Path(__file__).resolve().parent.parent
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# shared/ sits beside the checkout (CI, /work/main) or beside the worktrees' folder (/work/wt/NAME)


def test_every_rule_has_complete_metadata() -> None:
    for r in rules.registry().values():
        assert SLUG.match(r.id), r.id
        assert r.severity in SEVERITIES
        assert r.description and "\n" not in r.description and r.description.endswith(".")
        assert r.remediation and "\n" not in r.remediation
        assert r.source.startswith("https://"), r.source


def test_a_rule_without_a_public_source_is_refused() -> None:
    from planner.core.rules.rule_registry import Registry

    with pytest.raises(ValueError, match="not a public https URL"):
        Registry("rule").register("made-up", "error", "A rule.", "notes/article.txt", "Fix it.", category="capacity")


def test_a_rule_without_a_category_is_refused() -> None:
    """SARIF tags each rule with its declared category; none is guessed from module names."""
    from planner.core.rules.rule_registry import Registry

    with pytest.raises(ValueError, match="no category"):
        Registry("rule").register(
            "made-up", "error", "A rule.", "https://docs.aws.amazon.com/x.html", "Fix it.", category=""
        )


def test_one_registry_type_two_instances() -> None:
    """The spec rules and the preflight checks are the same `Registry` type; ids never overlap; every
    preflight check is declared in the core and its function attached by the AWS adapter."""
    from planner.aws.checks import CHECKS
    from planner.aws.preflight_run import registry
    from planner.core.rules.preflight_declarations import PREFLIGHT
    from planner.core.rules.rule_registry import Registry, not_attached

    assert CHECKS is PREFLIGHT and isinstance(rules.RULES, Registry) and isinstance(CHECKS, Registry)
    assert not set(rules.RULES.all()) & set(CHECKS.all())
    assert set(rules.known()) == set(rules.RULES.all()) | set(CHECKS.all())
    assert {r.category for r in CHECKS.all().values()} == {"preflight"}
    assert all(r.category for r in rules.RULES.all().values())
    assert all(r.check is not not_attached for r in registry().values())


def test_known_ids_need_no_adapter() -> None:
    """`known()` (suppressions, SARIF) and `planner rules` list the preflight checks from their core
    declarations: neither imports planner.aws (nor boto3)."""
    code = (
        "import sys, json; from planner.core import rules; from planner.commands import rules as cmd; "
        "ids = set(rules.known()); listed = [r.id for r in cmd.listing().rules]; "
        "print(json.dumps([sorted(ids), listed, [m for m in sys.modules if m.startswith(('planner.aws', 'boto'))]]))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    ids, listed, loaded = json.loads(out.stdout)
    assert "preflight-quota" in ids and "imdsv2-required" in ids and listed == sorted(ids)
    assert loaded == []


def test_attach_needs_a_declared_id_and_attaches_once() -> None:
    from planner.core.rules.rule_registry import Registry, RuleContext

    reg = Registry("check")
    reg.declare("made-up", "error", "A check.", "https://docs.aws.amazon.com/x.html", "Fix it.", category="preflight")
    with pytest.raises(ValueError, match="not declared"):
        reg.attach("other")(lambda r, ctx: [])
    with pytest.raises(LookupError, match="no check is attached"):
        reg.get("made-up").run(RuleContext(None, None))  # type: ignore[arg-type]

    def found(r, ctx):  # noqa: ANN001, ANN202
        return []

    reg.attach("made-up")(found)
    assert reg.get("made-up").check is found and reg.get("made-up").severity == "error"
    with pytest.raises(ValueError, match="attached already"):
        reg.attach("made-up")(lambda r, ctx: [])


def test_rules_json_lists_every_rule() -> None:
    res = run_cli("rules", "--format", "json")
    assert res.code == 0
    listed = json.loads(res.out)["rules"]
    assert [r["id"] for r in listed] == sorted(rules.known())  # the rules and the preflight checks
    assert set(listed[0]) == {"id", "severity", "category", "description", "source", "remediation", "rests_on"}
    assert {r["category"] for r in listed if r["id"].startswith("preflight-")} == {"preflight"}


def test_rules_json_is_the_listing_the_codec_writes_and_reads_back() -> None:
    """`--format json` is the typed listing (`RulesListing`) as the codec writes it, with the report's JSON
    text writer; `codec.load` reads it back, every value checked, equal to what was written."""
    from planner.core.document import codec
    from planner.core.document.rules_listing import RulesListing
    from planner.core.render.json_report import dumps

    listing = reference.listing()
    out = run_cli("rules", "--format", "json").out
    assert out == dumps(codec.dump(listing))  # the codec's data, written by the same writer as a report
    again = codec.load(RulesListing, json.loads(out))
    assert again == listing and dumps(codec.dump(again)) == out
    kinds = {r.id: r.rests_on.kind for r in listing.rules}
    assert set(kinds.values()) == {"aws", "policy", "unsourced"}  # each kind is written and read back
    # a key left out when empty is read back as empty; a quote's `says` only when planner reads something in it
    data = json.loads(out)
    assert all(set(r["rests_on"]) >= {"kind", "quotes"} for r in data["rules"])
    assert any("says" in q for r in data["rules"] for q in r["rests_on"]["quotes"])
    assert not any(q.get("says") == "" for r in data["rules"] for q in r["rests_on"]["quotes"])


def test_rules_json_refuses_what_its_types_do_not_say() -> None:
    from planner.core.document import codec
    from planner.core.document.codec import Invalid
    from planner.core.document.rules_listing import RulesListing

    data = json.loads(run_cli("rules", "--format", "json").out)
    data["rules"][0]["rests_on"]["kind"] = "hearsay"
    with pytest.raises(Invalid, match=r"rules\[0\]\.rests_on\.kind"):
        codec.load(RulesListing, data)
    data["rules"][0]["rests_on"]["kind"] = "aws"
    data["rules"][1]["source"] = "javascript:alert(1)"
    with pytest.raises(Invalid, match=r"rules\[1\]\.source: expected an https URL"):
        codec.load(RulesListing, data)


def test_no_entry_is_unsourced_with_no_sentence() -> None:
    from planner.core.document import codec

    assert codec.dump(reference._rests_on(None)) == {"kind": "unsourced", "quotes": []}


def test_rules_table() -> None:
    res = run_process("rules")
    assert res.code == 0
    lines = res.out.splitlines()
    assert lines[0].split() == ["rule", "severity", "description", "source"]
    rows = [line.split()[0] for line in lines[2:] if line and not line.startswith(" ") and not line.startswith("[")]
    assert rows[: len(rules.known())] == sorted(rules.known())  # one row per rule or check (descriptions wrap under it)
    assert lines[-1] == f"{len(rules.known())} rules"
    assert any(line.startswith("lustre-efa ") and "error" in line for line in lines)
    # piped: 100 columns; sources are numbered notes, a URL longer than a line kept whole beside its number
    assert all(len(line) <= 100 or re.fullmatch(r"\[\d+\] https://\S+", line) for line in lines)
    assert any(line.startswith("[1] https://") for line in lines)


REFERENCE_PAGE = "docs/reference/rules.md"


def test_docs_rule_reference_is_current() -> None:
    text = (ROOT / REFERENCE_PAGE).read_text(encoding="utf-8")
    start, end = text.find(reference.REFERENCE_START), text.find(reference.REFERENCE_END)
    assert 0 <= start < end, f"{REFERENCE_PAGE} needs a {reference.REFERENCE_START} ... {reference.REFERENCE_END} block"
    current = text[start : end + len(reference.REFERENCE_END)] + "\n"
    assert current == reference.reference_markdown(), (
        f"{REFERENCE_PAGE}'s rule reference is stale: regenerate it with "
        f"`python -m planner rules --update-readme {REFERENCE_PAGE}` (or `python -m tools.gen_reference`)"
    )


def test_markdown_format_is_the_reference() -> None:
    res = run_cli("rules", "--format", "markdown")
    assert res.out == reference.reference_markdown()
    assert res.out.count("\n| `") == len(rules.known())


def test_update_readme(tmp_path) -> None:
    f = tmp_path / "README.md"
    f.write_text(f"# x\n\n{reference.REFERENCE_START}\nold\n{reference.REFERENCE_END}\n\nafter\n", encoding="utf-8")
    assert run_cli("rules", "--update-readme", str(f)).code == 0
    assert f.read_text(encoding="utf-8") == f"# x\n\n{reference.reference_markdown()}\nafter\n"
    missing = tmp_path / "NOMARK.md"
    missing.write_text("# nothing\n", encoding="utf-8")
    res = run_cli("rules", "--update-readme", str(missing))
    assert res.code == 2 and str(missing) in res.err and "rules:start" in res.err
