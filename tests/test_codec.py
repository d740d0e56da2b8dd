"""The document's one codec: every section written and read by its types, checked as it is read.

No document type has a hand-written `to_json` or `from_json`, no `Any` is left in
`planner/core/document/`, every section round-trips exactly, and what a field's metadata says
(a JSON name, a key left out, a record written into its parent, a shape) holds both ways.
"""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path
from typing import Annotated

import pytest
from msgspec import Struct

from planner.core.document import codec
from planner.core.document.codec import Invalid, key, load
from planner.core.document.cost_section import InstanceDetail, LineItem
from planner.core.document.report import Report, load_report
from tests.section_documents import REPORTS as SECTION_DOCUMENTS

DOCUMENT = Path(__file__).resolve().parent.parent / "planner" / "core" / "document"


def test_no_document_type_writes_or_reads_itself_and_nothing_is_untyped() -> None:
    for path in sorted(DOCUMENT.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        methods = {
            f.name
            for c in ast.walk(tree)
            if isinstance(c, ast.ClassDef)
            for f in c.body
            if isinstance(f, ast.FunctionDef)
        }
        assert not methods & {"to_json", "from_json"}, path.name
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
            n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
        }
        assert "Any" not in names, path.name


@pytest.mark.parametrize("name", sorted(SECTION_DOCUMENTS))
def test_every_section_round_trips_through_json(name: str) -> None:
    report = SECTION_DOCUMENTS[name]()
    data = json.loads(json.dumps(codec.dump(report)))
    again = load_report(data)
    assert again == report
    assert json.dumps(codec.dump(again)) == json.dumps(codec.dump(report))


class _Inner(Struct, frozen=True):
    kind: str
    size: int = 0


class _Outer(Struct, frozen=True):
    name: Annotated[str, key("label")]
    note: Annotated[str | None, key(omit="none")] = None
    tags: Annotated[tuple[str, ...], key(omit="empty")] = ()
    only_with_note: Annotated[int | None, key(omit=("unless", "note"))] = None
    inner: Annotated[_Inner | None, key(flatten=True)] = None
    pairs: Annotated[tuple[tuple[str, float], ...], key(shape="pairs")] = ()
    one: Annotated[_Inner | None, key(shape="one")] = None


def test_metadata_holds_both_ways() -> None:
    bare = _Outer("x")
    assert codec.dump(bare) == {"label": "x", "pairs": {}, "one": [None]}
    full = _Outer("x", "n", ("a",), 3, _Inner("k", 2), (("p", 0.5),), _Inner("o"))
    data = codec.dump(full)
    assert data == {
        "label": "x",
        "note": "n",
        "tags": ["a"],
        "only_with_note": 3,
        "kind": "k",
        "size": 2,
        "pairs": {"p": 0.5},
        "one": [{"kind": "o", "size": 0}],
    }
    assert load(_Outer, json.loads(json.dumps(data))) == full
    assert load(_Outer, {"label": "x", "only_with_note": 3, "one": [None]}).only_with_note == 3


def test_a_line_items_detail_is_read_by_the_keys_only_its_kind_has() -> None:
    item = LineItem("aws:ec2/instance:Instance", "g", "instance-hour", 1, 2.0, 2.0, 2.0, 1, 1, detail=None)
    with_detail = codec.dump(item) | {
        "instance_type": "p5.48xlarge",
        "purchase": "spot",
        "region": "us-east-2",
        "instances": 1,
    }
    assert load(LineItem, with_detail).detail == InstanceDetail("p5.48xlarge", "spot", "us-east-2", 1)
    assert load(LineItem, codec.dump(item)).detail is None


BAD = [
    ({"label": 5}, "label: expected a string, got a number 5"),
    ({"label": "x", "pairs": {"p": math.nan}}, "pairs[0][1]: expected a number"),
    ({"label": "x", "pairs": {"p": True}}, "pairs[0][1]: expected a number, got true"),
    ({"label": "x", "tags": ["a"] * 100_001}, "tags: expected at most 100,000 items"),
    ({"label": "x" * 10_001}, "label: expected at most 10,000 characters"),
    ({"label": "x", "one": [{"kind": "k"}, {"kind": "j"}]}, "one: expected a list of one item"),
    ({}, "label: missing key 'label'"),
]


@pytest.mark.parametrize(("data", "said"), BAD)
def test_reading_checks_every_value(data: dict[str, object], said: str) -> None:
    with pytest.raises(Invalid) as exc:
        load(_Outer, data)
    assert str(exc.value).startswith(said)


def test_a_report_names_the_key_of_a_bad_value_and_its_version() -> None:
    report = codec.dump(Report("plan"))
    assert isinstance(report, dict)
    assert load_report(report) == Report("plan")
    with pytest.raises(ValueError, match="version 3; this planner reads version 2"):
        load_report(dict(report, version=3))
    bad_rule = dict(
        report,
        rules=[{"id": "x", "severity": "fatal", "description": "", "source": "", "remediation": "", "category": ""}],
    )
    with pytest.raises(ValueError) as exc:
        load_report(bad_rule)
    assert getattr(exc.value, "key", "") == "rules[0].severity"
