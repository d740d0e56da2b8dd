"""`planner.report.json_text.dumps` writes what `json.dumps(indent=2, ensure_ascii=False,
allow_nan=False)` writes, byte for byte (it is only faster), and refuses what json refuses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.report import json_text

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
