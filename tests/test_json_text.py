"""`planner.core.render.json_text.dumps` writes what `json.dumps(indent=2, ensure_ascii=False,
allow_nan=False)` writes, byte for byte (it is only faster), and refuses what json refuses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.core.render import json_text

_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
_keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False, allow_infinity=False)
_documents = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=30,
)


def _stdlib(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False)


@settings(derandomize=True, database=None, max_examples=200)
@given(_documents)
def test_the_same_text_as_json_dumps(obj: Any) -> None:
    assert json_text.dumps(obj) == _stdlib(obj)


def test_the_same_text_for_a_plan_report() -> None:
    from conftest import run_cli

    doc = json.loads(run_cli("plan", "stacks", "--format", "json").out)
    assert json_text.dumps(doc) == _stdlib(doc)
    edge = {
        "empty": {},
        "none": [],
        "nested": [[], {}, [[1.5e300, -0.0, 10**30]]],
        1: "int key",
        None: '\u2028\x85 "q" \\',
        2.5: True,
        False: None,
    }
    assert json_text.dumps(edge) == _stdlib(edge)


@pytest.mark.parametrize("bad", [float("nan"), [float("inf")], {"k": float("-inf")}, {1.0: float("nan")}])
def test_refuses_what_json_cannot_say(bad: Any) -> None:
    with pytest.raises(ValueError):
        _stdlib(bad)
    with pytest.raises(ValueError):
        json_text.dumps(bad)


@pytest.mark.parametrize("bad", [{1, 2}, {"k": object()}, {(1, 2): "tuple key"}, b"bytes"])
def test_refuses_other_types(bad: Any) -> None:
    with pytest.raises(TypeError):
        _stdlib(bad)
    with pytest.raises(TypeError):
        json_text.dumps(bad)


class _Point:
    def __init__(self, x: int, label: str) -> None:
        self.x, self.label = x, label


def _as_object(o: Any) -> Any:
    if isinstance(o, _Point):
        return {"x": o.x, "points": [], "label": o.label}
    raise TypeError(type(o).__name__)


def test_default_writes_other_types_as_json_dumps_does() -> None:
    """`default`, as in `json.dumps`: what it returns is written in the value's place, and what it
    returns may hold more values for it."""
    obj = {"a": _Point(1, "\u2028one"), "more": [_Point(2, "two"), (3, _Point(4, "four"))], "n": None}
    assert json_text.dumps(obj, _as_object) == json.dumps(
        obj, indent=2, ensure_ascii=False, allow_nan=False, default=_as_object
    )
    with pytest.raises(TypeError):
        json_text.dumps({"k": object()}, _as_object)


def _reports() -> list[Any]:
    import section_documents as docs
    from conftest import run_cli

    from planner.core.document import Report, codec

    planned = codec.load(Report, json.loads(run_cli("plan", "stacks", "tests/corpus", "--format", "json").out))
    made = [getattr(docs, name)() for name in dir(docs) if name.endswith("_report") and not name.startswith("_")]
    return [planned, *made]


def test_a_report_written_one_record_at_a_time_is_the_codec_s_dump() -> None:
    """The JSON format writes each record as the codec gives it one level deep (`codec.shallow`),
    never building the whole tree of dicts; the text is the codec's whole dump written as JSON, byte
    for byte, for a plan report and every section's (compare, capacity, diff)."""
    from planner.core.document import codec
    from planner.core.render import json_report

    reports = _reports()
    assert len(reports) > 10
    for r in reports:
        assert json_report.render(r) == json_report.dumps(codec.dump(r))
