"""`planner/core/catalogue/prebuilt_data.py` is the shipped YAML as literals: regenerated it is unchanged, it holds
exactly what PyYAML builds from each file, and an edited file is read as YAML, not from stale literals."""

from __future__ import annotations

import datetime as _dt
import shutil
from pathlib import Path
from typing import Any

import pytest

from planner.core.catalogue import prebuilt_data as prebuilt
from planner.core.catalogue import shipped_data as data
from planner.core.reading import yaml_lines as yamlload
from tools import gen_prebuilt_data


def _typed(value: Any) -> Any:
    """`value` with every scalar paired with its type, so 1 == True or a date == its text cannot pass."""
    if isinstance(value, dict):
        return [(_typed(k), _typed(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


def test_the_committed_module_is_what_the_generator_writes() -> None:
    committed = gen_prebuilt_data.OUT.read_text(encoding="utf-8")
    assert committed == gen_prebuilt_data.render(), "stale: run `.venv/bin/python -m tools.gen_prebuilt_data`"


def test_every_shipped_yaml_file_has_its_literals() -> None:
    assert sorted(prebuilt.FILES) == gen_prebuilt_data.data_files()
    assert "prices/current.yaml" in prebuilt.FILES and "catalogue.yaml" in prebuilt.FILES


@pytest.mark.parametrize("name", gen_prebuilt_data.data_files())
def test_literals_hold_what_pyyaml_builds(name: str) -> None:
    parsed = yamlload.load_data(name)[0]
    assert prebuilt.FILES[name][0:2] == gen_prebuilt_data.fingerprint((Path(yamlload.DATA_DIR) / name).read_bytes())
    assert _typed(prebuilt.FILES[name][2]()) == _typed(parsed)
    assert _typed(data.raw(name)[0]) == _typed(parsed)


def test_each_call_builds_new_objects() -> None:
    first, second = data.raw("catalogue.yaml")[0], data.raw("catalogue.yaml")[0]
    assert first == second and first is not second
    first.clear()
    assert data.raw("catalogue.yaml")[0] == second


def test_an_edited_file_is_read_as_yaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "data"
    shutil.copytree(yamlload.DATA_DIR, copy)
    limits = copy / "aws-limits.yaml"
    text = limits.read_text(encoding="utf-8")
    assert "max_days: 182" in text
    limits.write_text(text.replace("max_days: 182", "max_days: 183"), encoding="utf-8")
    monkeypatch.setattr(yamlload, "DATA_DIR", str(copy))
    assert data.raw("aws-limits.yaml")[0]["capacity_blocks"]["max_days"] == 183
    assert data.raw("regions.yaml")[0] == prebuilt.FILES["regions.yaml"][2]()  # unchanged: the literals


def test_the_generator_refuses_what_python_literals_cannot_say() -> None:
    assert gen_prebuilt_data.literal(_dt.date(2026, 1, 2)) == "date(2026, 1, 2)"
    nested = "{\n    'a': [\n        1,\n        None,\n        True,\n        'x',\n    ],\n}"
    assert gen_prebuilt_data.literal({"a": [1, None, True, "x"]}) == nested
    for bad in (float("nan"), float("inf"), _dt.datetime(2026, 1, 1), object()):
        with pytest.raises(TypeError):
            gen_prebuilt_data.literal(bad)
