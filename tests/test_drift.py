"""`make drift` (tools/drift.py): what it reports, on answers made here, so the answer never moves.

The check itself runs against the newest botocore and moto (`make drift`), never in `make test`;
these tests hold what it says about a difference of each kind.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from planner.core.catalogue.instance_types import load
from tools import drift

CAT = load()
P5EN = CAT.instance_types["p5en.48xlarge"]
TRN2 = CAT.instance_types["trn2.48xlarge"]


def _answer(t: Any) -> dict[str, Any]:
    """A DescribeInstanceTypes answer that agrees with the catalogue entry `t`, field by field."""
    usage = ["on-demand"] + (["spot"] if t.spot else []) + (["capacity-block"] if t.capacity_block else [])
    cards = [{"PeakBandwidthInGbps": t.network_bandwidth_gbps / t.network_cards}] * t.network_cards
    out: dict[str, Any] = {
        "InstanceType": t.name,
        "SupportedUsageClasses": usage,
        "VCpuInfo": {"DefaultVCpus": t.vcpus},
        "MemoryInfo": {"SizeInMiB": t.memory_gib * 1024},
        "NetworkInfo": {
            "MaximumNetworkCards": t.network_cards,
            "MaximumNetworkInterfaces": t.max_network_interfaces,
            "EfaSupported": t.efa_supported,
            "EfaInfo": {"MaximumEfaInterfaces": t.efa_max_interfaces},
            "NetworkCards": cards,
            "NetworkPerformance": f"{t.network_bandwidth_gbps:g} Gigabit",
        },
        "InstanceStorageInfo": {"Disks": [{"Count": t.local_nvme_disks, "SizeInGB": t.local_nvme_disk_gb}]},
    }
    acc = t.accelerator
    if acc.vendor == "NVIDIA":
        gpu = {"Name": acc.name.removesuffix("-80GB"), "Count": t.accelerator_count}
        out["GpuInfo"] = {"Gpus": [gpu | {"MemoryInfo": {"SizeInMiB": acc.memory_gib * 1024}}]}
    else:
        out["NeuronInfo"] = {
            "NeuronDevices": [
                {
                    "Name": acc.name,
                    "Count": t.accelerator_count,
                    "CoreInfo": {"Count": acc.neuron_cores},
                    "MemoryInfo": {"SizeInMiB": acc.memory_gib * 1024},
                }
            ]
        }
    return out


def test_an_answer_that_agrees_gives_no_difference() -> None:
    types = {"p5en.48xlarge": P5EN}
    assert drift.instance_type_differences(types, {"p5en.48xlarge": _answer(P5EN)}) == []


@pytest.mark.parametrize(
    ("change", "field", "aws"),
    [
        (lambda d: d["VCpuInfo"].update(DefaultVCpus=190), "vcpus", "190"),
        (
            lambda d: d["SupportedUsageClasses"].remove("capacity-block"),
            "capacity_block (SupportedUsageClasses)",
            "false",
        ),
        (lambda d: d["NetworkInfo"].update(MaximumNetworkCards=8), "network_cards", "8"),
        (lambda d: d["GpuInfo"]["Gpus"][0].update(Count=4), "accelerator_count", "4"),
    ],
)
def test_a_changed_field_is_named_with_both_values(change: Any, field: str, aws: str) -> None:
    answer = copy.deepcopy(_answer(P5EN))
    change(answer)
    [d] = drift.instance_type_differences({"p5en.48xlarge": P5EN}, {"p5en.48xlarge": answer})
    assert (d.subject, d.field, d.aws, d.known) == ("p5en.48xlarge", field, aws, False)
    text, code = drift.report([d], "botocore 9.9.9, moto 9.9.9")
    assert code == 1
    assert f"p5en.48xlarge  {field}: shipped {d.shipped}; AWS data {aws}" in text
    assert text.startswith("planner drift: shipped data against botocore 9.9.9, moto 9.9.9\n")


def test_a_documented_disagreement_is_known_until_either_side_moves() -> None:
    """EC2 reports 512 GiB of Neuron device memory per Trainium2; the catalogue follows the Neuron docs' 96."""
    answer = _answer(TRN2)
    answer["NeuronInfo"]["NeuronDevices"][0]["MemoryInfo"]["SizeInMiB"] = 512 * 1024
    [d] = drift.instance_type_differences({"trn2.48xlarge": TRN2}, {"trn2.48xlarge": answer})
    assert d.known and drift.report([d], "x")[1] == 0
    answer["NeuronInfo"]["NeuronDevices"][0]["MemoryInfo"]["SizeInMiB"] = 1024 * 1024
    [d] = drift.instance_type_differences({"trn2.48xlarge": TRN2}, {"trn2.48xlarge": answer})
    assert not d.known and drift.report([d], "x")[1] == 1


def test_regions_both_ways_and_members_left_to_the_pricing_page() -> None:
    types = {"p5en.48xlarge": P5EN, "trn2u.48xlarge": CAT.instance_types["trn2u.48xlarge"]}
    offered = {"p5en.48xlarge": (set(P5EN.regions) - {P5EN.regions[0]}) | {"eu-west-9"}, "trn2u.48xlarge": set()}
    diffs = drift.offering_differences(types, offered, members={"trn2u.48xlarge"})
    assert [(d.field, d.shipped, d.aws) for d in diffs] == [
        ("regions not offered", P5EN.regions[0], "not offered"),
        ("regions offered, not listed", "not listed", "eu-west-9"),
    ]


def test_regions_file_changes_are_per_region_and_key() -> None:
    shipped = {"regions": {"us-east-2": {"partition": "aws", "description": "US East (Ohio)", "zones": ["us-east-2a"]}}}
    generated = copy.deepcopy(shipped)
    generated["regions"]["us-east-2"]["zones"].append("us-east-2b")
    generated["regions"]["eu-east-9"] = {"partition": "aws", "description": "New", "zones": None}
    diffs = drift.region_differences(shipped, generated)
    assert [(d.field, d.shipped, d.aws) for d in diffs] == [
        ("region eu-east-9", "absent", "listed"),
        ("us-east-2 zones", "us-east-2a", "us-east-2a, us-east-2b"),
    ]


def test_new_api_types_are_drift_and_uncovered_ones_only_reported() -> None:
    diffs = drift.model_differences({"p5en.48xlarge"}, ["p5en.48xlarge", "trn3.48xlarge"], accelerated={"g6e.48xlarge"})
    text, code = drift.report(diffs, "x")
    assert code == 1
    assert "Trn3 instance types: shipped none (not declarable); AWS data trn3.48xlarge" in text
    assert (
        "coverage (not drift): accelerated types with EFA not curated (planned from the generated table, no peak "
        "FLOPS): g6e.48xlarge" in text
    )
    assert drift.report(drift.model_differences({"a"}, ["a"], {"g6e.48xlarge"}), "x")[1] == 0


def test_p6e_gb300_in_the_api_model_is_drift() -> None:
    # AWS's PCS guide names P6e-GB300; botocore 1.44's model and moto 5.2.6's data list no such type yet
    diffs = drift.model_differences({"a"}, ["a", "p6e-gb300.36xlarge"], accelerated=set())
    text, code = drift.report(diffs, "x")
    assert code == 1
    assert "P6e-GB300 instance types: shipped none (not declarable); AWS data p6e-gb300.36xlarge" in text


def test_the_generated_table_drifts_per_type_and_field() -> None:
    row = {"vcpus": 8, "regions": ["us-east-1"], "accelerators": []}
    shipped = {"instance_types": {"m7i.2xlarge": row, "x1.old": row}}
    generated = copy.deepcopy(shipped)
    del generated["instance_types"]["x1.old"]
    generated["instance_types"]["m7i.2xlarge"]["regions"].append("eu-west-1")
    generated["instance_types"]["g9.new"] = row
    diffs = drift.table_differences(shipped, generated)
    assert [(d.field, d.shipped, d.aws) for d in diffs] == [
        ("type g9.new", "absent", "listed"),
        ("m7i.2xlarge regions", "us-east-1", "us-east-1, eu-west-1"),
        ("type x1.old", "listed", "absent"),
    ]
    assert drift.report(diffs, "x")[1] == 1
    assert drift.table_differences(shipped, copy.deepcopy(shipped)) == []


def test_without_botocore_or_moto_it_says_how_to_run_it(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    def missing() -> Any:
        raise ModuleNotFoundError("No module named 'moto'", name="moto")

    monkeypatch.setattr(drift, "collect", missing)
    assert drift.main([]) == 2
    assert capsys.readouterr().out == (
        "drift: moto is not installed: run `make drift` (it installs the newest botocore and moto)\n"
    )
