"""`planner/data/prebuilt/` is the shipped YAML as JSON: regenerated it is unchanged, it holds exactly
what PyYAML builds from each file, it is what planner reads, and an edited file is read as YAML."""

from __future__ import annotations

import datetime as _dt
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

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


@pytest.mark.parametrize("name", gen_prebuilt_data.data_files())
def test_the_committed_file_is_what_the_generator_writes(name: str) -> None:
    committed = gen_prebuilt_data.target(name).read_text(encoding="utf-8")
    assert committed == gen_prebuilt_data.render(name), "stale: run `.venv/bin/python -m tools.gen_prebuilt_data`"


def test_every_shipped_yaml_file_has_its_prebuilt_file_and_no_other() -> None:
    made = sorted(p.relative_to(gen_prebuilt_data.OUT).as_posix() for p in gen_prebuilt_data.OUT.rglob("*.json"))
    assert made == [f"{name}.json" for name in gen_prebuilt_data.data_files()]
    assert (
        "prices/current.yaml" in gen_prebuilt_data.data_files() and "catalogue.yaml" in gen_prebuilt_data.data_files()
    )


@pytest.mark.parametrize("name", gen_prebuilt_data.data_files())
def test_prebuilt_files_hold_what_pyyaml_builds_and_are_what_planner_reads(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed = yamlload.load_data(name)[0]
    head = json.loads(gen_prebuilt_data.target(name).read_text(encoding="utf-8").splitlines()[0])
    size, crc = gen_prebuilt_data.fingerprint((Path(yamlload.DATA_DIR) / name).read_bytes())
    assert head == {"source": name, "length": size, "crc32": crc}

    def no_yaml(relpath: str) -> Any:
        raise AssertionError(f"{relpath} parsed as YAML: its prebuilt file was not used")

    monkeypatch.setattr(yamlload, "load_data", no_yaml)
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
    (copy / "prebuilt" / "regions.yaml.json").unlink()  # no prebuilt file: the YAML is read
    assert data.raw("regions.yaml")[0] == yamlload.load_data("regions.yaml")[0]


def test_the_generator_keeps_dates_and_number_keys_and_refuses_what_json_cannot_say() -> None:
    assert gen_prebuilt_data.plain({"as_of": _dt.date(2026, 1, 2)}) == {"as_of": {"$date": "2026-01-02"}}
    assert gen_prebuilt_data.plain({50: "a", 100: "b"}) == {"$pairs": [[50, "a"], [100, "b"]]}
    for bad in (float("nan"), float("inf"), _dt.datetime(2026, 1, 1), object(), {"$date": "x"}, {(1, 2): 3}):
        with pytest.raises(TypeError):
            gen_prebuilt_data.plain(bad)
