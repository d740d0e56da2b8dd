"""FSx for Lustre Intelligent-Tiering as a Lustre deployment: its keys, its rules, its price.

The AWS sentences the rules rest on, read 2026-12-05 in the FSx API reference's text as the AWS SDK ships it
(botocore 1.44.8's fsx service model, the locked version; `test_the_quoted_sentences_are_aws_text` checks
each against that text, so a newer SDK that words them otherwise fails here):

- CreateFileSystem, StorageType (https://docs.aws.amazon.com/fsx/latest/APIReference/API_CreateFileSystem.html):
  "Intelligent-Tiering is only available for OpenZFS file systems with the Multi-AZ deployment type and for
  Lustre file systems with the Persistent_2 deployment type."
- CreateFileSystemLustreConfiguration
  (https://docs.aws.amazon.com/fsx/latest/APIReference/API_CreateFileSystemLustreConfiguration.html),
  ThroughputCapacity: "Valid values are 1000 MBps, 2000 MBps, and multiples of 4000 MBps, up to a maximum of
  2000000 MBps."; EfaEnabled: "On file systems that use the Intelligent-Tiering storage class, you can enable
  EFA only when ThroughputCapacity is 4000 MBps or a multiple of 4000 MBps."; DataReadCacheConfiguration:
  "Required when StorageType is set to INTELLIGENT_TIERING."
- LustreReadCacheConfiguration, SizeGiB
  (https://docs.aws.amazon.com/fsx/latest/APIReference/API_LustreReadCacheConfiguration.html): "Required if
  SizingMode is set to USER_PROVISIONED." and "Intelligent-Tiering file systems support a minimum of 8 GiB and
  maximum of 32768 GiB for SSD read cache size for every 1000 MBps of throughput capacity provisioned."

The Lustre User Guide's "Managing provisioned throughput capacity" page, as the stored copies read, says "Valid
values are 4,000 MBps or increments of 4,000 MBps, up to a maximum of 2,000,000 MBps" (of modifying a file
system); planner takes the API reference's values, which add 1,000 and 2,000 MBps.

The cases and near misses of both rules are in tests/test_rules.py (`CASES`) and tests/invalid_stacks/.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from planner.core import rules
from planner.core.input.stack_files import load_stack
from planner.core.planning.pipeline import PlanOptions, plan_stack
from tests.conftest import run_cli

CREATE = "https://docs.aws.amazon.com/fsx/latest/APIReference/API_CreateFileSystem.html"
LUSTRE_CONFIG = "https://docs.aws.amazon.com/fsx/latest/APIReference/API_CreateFileSystemLustreConfiguration.html"
READ_CACHE = "https://docs.aws.amazon.com/fsx/latest/APIReference/API_LustreReadCacheConfiguration.html"
SENTENCES = [
    (
        "CreateFileSystemRequest",
        "StorageType",
        "Intelligent-Tiering is only available for OpenZFS file systems with the Multi-AZ deployment type and for "
        "Lustre file systems with the Persistent_2 deployment type.",
    ),
    (
        "CreateFileSystemLustreConfiguration",
        "ThroughputCapacity",
        "Valid values are 1000 MBps, 2000 MBps, and multiples of 4000 MBps, up to a maximum of 2000000 MBps.",
    ),
    (
        "CreateFileSystemLustreConfiguration",
        "EfaEnabled",
        "On file systems that use the Intelligent-Tiering storage class, you can enable EFA only when "
        "ThroughputCapacity is 4000 MBps or a multiple of 4000 MBps.",
    ),
    (
        "CreateFileSystemLustreConfiguration",
        "DataReadCacheConfiguration",
        "Required when StorageType is set to INTELLIGENT_TIERING.",
    ),
    ("LustreReadCacheConfiguration", "SizeGiB", "Required if SizingMode is set to USER_PROVISIONED."),
    (
        "LustreReadCacheConfiguration",
        "SizeGiB",
        "Intelligent-Tiering file systems support a minimum of 8 GiB and maximum of 32768 GiB for SSD read cache "
        "size for every 1000 MBps of throughput capacity provisioned.",
    ),
]

BASE = """config:
  aws:region: us-east-2
  planner:cluster:
    availability_zone: us-east-2b
    node_groups:
      - {{name: trainers, instance_type: trn2.48xlarge, count: 1}}
    lustre:
{lustre}
    schedule:
      hours: 730
"""
TIERING = {
    "deployment_type": "PERSISTENT_2",
    "storage_type": "INTELLIGENT_TIERING",
    "throughput_capacity_mbps": 4000,
    "read_cache_sizing_mode": "USER_PROVISIONED",
    "read_cache_size_gib": 1024,
}


def write(tmp_path: Path, lustre: dict[str, Any], name: str = "it") -> Path:
    body = "\n".join(f"      {k}: {v}" for k, v in lustre.items())
    path = tmp_path / f"Pulumi.{name}.yaml"
    path.write_text(BASE.format(lustre=body), encoding="utf-8")
    return path


@pytest.mark.parametrize("shape,member,sentence", SENTENCES)
def test_the_quoted_sentences_are_aws_text(shape: str, member: str, sentence: str) -> None:
    import botocore.session

    model = botocore.session.get_session().get_service_model("fsx")
    text = " ".join(re.sub(r"<[^>]+>", "", model.shape_for(shape).members[member].documentation).split())
    assert sentence in text


def test_the_rules_cite_the_api_reference_and_the_data_quotes_it() -> None:
    from planner.core.reading.yaml_lines import DATA_DIR

    assert rules.get("lustre-intelligent-tiering").source == LUSTRE_CONFIG  # type: ignore[union-attr]
    assert rules.get("lustre-read-cache").source == READ_CACHE  # type: ignore[union-attr]
    text = (Path(DATA_DIR) / "fsx_lustre.yaml").read_text(encoding="utf-8")
    raw = " ".join(line.lstrip("# ") for line in text.splitlines())
    for _, _, sentence in SENTENCES:
        assert sentence in raw, sentence
    assert CREATE in raw and LUSTRE_CONFIG in raw and READ_CACHE in raw


def test_an_intelligent_tiering_file_system_is_planned_with_no_storage_capacity(tmp_path: Path) -> None:
    plan = plan_stack(load_stack(str(write(tmp_path, TIERING))))
    fs = plan.stack.cluster.lustre
    assert fs is not None and fs.intelligent_tiering and fs.storage_capacity_gib is None
    assert (fs.throughput_capacity_mbps, fs.read_cache_sizing_mode, fs.read_cache_size_gib) == (
        4000,
        "USER_PROVISIONED",
        1024,
    )
    assert [f.rule for f in plan.findings if f.severity == "error"] == []
    lustre = plan.summary.lustre
    assert lustre is not None and lustre.storage_type == "INTELLIGENT_TIERING"
    assert lustre.throughput_capacity_mbps == 4000 and lustre.storage_capacity_gib is None
    assert (lustre.read_cache_sizing_mode, lustre.read_cache_size_gib) == ("USER_PROVISIONED", 1024)


@pytest.mark.parametrize(
    "cache,said",
    [
        ("USER_PROVISIONED", "(SSD read cache of 1,024 GiB)"),
        ("NO_CACHE", "(no SSD read cache)"),
        ("PROPORTIONAL_TO_THROUGHPUT_CAPACITY", "(SSD read cache sized with the throughput capacity)"),
    ],
)
def test_the_summary_says_the_read_cache_in_the_table_the_json_and_the_diagram(
    tmp_path: Path, cache: str, said: str
) -> None:
    """The read cache is part of what was declared: the JSON's summary and topology carry it (left out for SSD)
    and the table's file-system line and the Markdown diagram say it."""
    import json

    fs = {**TIERING, "read_cache_sizing_mode": cache}
    if cache != "USER_PROVISIONED":
        del fs["read_cache_size_gib"]
    path = str(write(tmp_path, fs))
    stack = json.loads(run_cli("plan", path, "--format", "json").out)["stacks"][0]
    for part in (stack["summary"]["lustre"], stack["topology"]["lustre"]):
        assert part["read_cache_sizing_mode"] == cache
        assert part.get("read_cache_size_gib") == (1024 if cache == "USER_PROVISIONED" else None)
    table = " ".join(run_cli("plan", path, "--wide").out.split())
    assert f"Intelligent-Tiering at 4,000 MBps {said}" in table, table
    diagram = run_cli("plan", path, "--format", "markdown").out
    assert f"4,000 MBps, {said[1:-1]}" in diagram


def test_its_charges_are_unknown_in_the_built_in_book_with_the_reason_and_its_storage_left_out(
    tmp_path: Path,
) -> None:
    cost = plan_stack(load_stack(str(write(tmp_path, TIERING)))).cost
    assert cost is not None
    items = {i.name: i for i in cost.line_items if i.name.startswith("lustre")}
    assert set(items) == {"lustre throughput", "lustre read cache"}
    for item in items.values():
        assert item.price is None and item.note is not None
        assert "no dated public copy of AWS's FSx for Lustre Intelligent-Tiering rates" in item.note
    assert items["lustre throughput"].unit == "MBps-month" and items["lustre throughput"].quantity == 4000
    assert items["lustre read cache"].unit == "GB-month" and items["lustre read cache"].quantity == 1024
    assert cost.left_out == ("FSx for Lustre Intelligent-Tiering storage (billed per GB stored: usage)",)
    assert cost.total_usd is None


def test_a_cache_sized_with_the_throughput_has_no_line_and_is_left_out(tmp_path: Path) -> None:
    fs = {**TIERING, "read_cache_sizing_mode": "PROPORTIONAL_TO_THROUGHPUT_CAPACITY"}
    del fs["read_cache_size_gib"]
    cost = plan_stack(load_stack(str(write(tmp_path, fs)))).cost
    assert cost is not None
    assert [i.name for i in cost.line_items if i.name.startswith("lustre")] == ["lustre throughput"]
    assert "FSx for Lustre SSD read cache sized with the throughput capacity (its size is not declared)" in (
        cost.left_out
    )
    fs["read_cache_sizing_mode"] = "NO_CACHE"
    cost = plan_stack(load_stack(str(write(tmp_path, fs)))).cost
    assert cost is not None and len(cost.left_out) == 1


def test_a_price_book_of_your_own_prices_both_charges(tmp_path: Path) -> None:
    book_file = tmp_path / "prices.yaml"
    book_file.write_text(
        "lustre_tiering:\n"
        "  - {region: us-east-2, charge: throughput_capacity, usd_per_mbps_month: 0.5,"
        ' source: "https://example.com/a", as_of: 2026-08-01}\n'
        "  - {region: us-east-2, charge: read_cache, usd_per_gb_month: 0.1,"
        ' source: "https://example.com/b", as_of: 2026-08-01}\n',
        encoding="utf-8",
    )
    result = run_cli("plan", str(write(tmp_path, TIERING)), "--price-book", str(book_file), "--format", "json")
    assert result.code == 0, result.err
    stack = json.loads(result.out)["stacks"][0]
    items = {i["name"]: i for i in stack["cost"]["line_items"]}
    assert items["lustre throughput"]["unit_price_usd"] == 0.5
    assert items["lustre throughput"]["total_usd"] == 2000.0  # 4,000 MBps x 0.5 for 730 h (one month)
    assert items["lustre read cache"]["total_usd"] == 102.4
    # the detail, flattened into the item: the throughput line names its MBps, the cache line its GiB
    assert items["lustre throughput"]["throughput_capacity_mbps"] == 4000
    assert items["lustre throughput"]["storage_type"] == "INTELLIGENT_TIERING"
    assert items["lustre throughput"]["storage_capacity_gib"] is None
    assert items["lustre read cache"]["read_cache_size_gib"] == 1024
    assert stack["cost"]["left_out"] == ["FSx for Lustre Intelligent-Tiering storage (billed per GB stored: usage)"]


def test_a_book_entry_with_the_other_charges_price_key_is_one_line(tmp_path: Path) -> None:
    book_file = tmp_path / "prices.yaml"
    book_file.write_text(
        "lustre_tiering:\n"
        "  - {region: us-east-2, charge: read_cache, usd_per_mbps_month: 0.1,"
        ' source: "https://example.com/b", as_of: 2026-08-01}\n',
        encoding="utf-8",
    )
    result = run_cli("plan", str(write(tmp_path, TIERING)), "--price-book", str(book_file))
    assert result.code == 2 and "Traceback" not in result.err
    lines = [x for x in result.err.splitlines() if x.strip()]
    assert len(lines) == 1 and "usd_per_mbps_month" in lines[0] and "usd_per_gb_month" in lines[0], result.err


@pytest.mark.parametrize(
    "change,expected",
    [
        ({"storage_capacity_gib": 2400}, {"storage_capacity_gib": "INTELLIGENT_TIERING, whose storage is elastic"}),
        ({"per_unit_storage_throughput": 250}, {"per_unit_storage_throughput": "sized by throughput_capacity_mbps"}),
        (
            {"storage_capacity_gib": 2400, "per_unit_storage_throughput": 250},
            {
                "storage_capacity_gib": "INTELLIGENT_TIERING, whose storage is elastic",
                "per_unit_storage_throughput": "sized by throughput_capacity_mbps",
            },
        ),
        (
            {"storage_type": "SSD", "storage_capacity_gib": 2400, "per_unit_storage_throughput": 250},
            {
                "throughput_capacity_mbps": "an SSD file system",
                "read_cache_sizing_mode": "an SSD file system",
                "read_cache_size_gib": "an SSD file system",
            },
        ),
    ],
)
def test_keys_of_the_other_storage_type_are_each_one_line_naming_the_key(
    tmp_path: Path, change: dict[str, Any], expected: dict[str, str]
) -> None:
    """Every key the storage type has no use for is said at once, one line each (not the first alone,
    to be found again on the next run)."""
    fs = {**TIERING, **change}
    result = run_cli("plan", str(write(tmp_path, fs)))
    assert result.code == 2 and "Traceback" not in result.err
    lines = [x for x in result.err.splitlines() if x.strip()]
    assert len(lines) == len(expected), result.err
    for line, (key, why) in zip(lines, expected.items(), strict=True):
        assert f"lustre.{key}: does not apply to" in line and why in line and "Pulumi.it.yaml" in line, line


def test_an_ssd_file_system_still_requires_its_capacity(tmp_path: Path) -> None:
    result = run_cli(
        "plan", str(write(tmp_path, {"deployment_type": "PERSISTENT_2", "per_unit_storage_throughput": 250}))
    )
    assert result.code == 2
    assert "planner:cluster.lustre: missing required key 'storage_capacity_gib'" in result.err


def test_checkpoint_time_on_an_intelligent_tiering_file_system_raises_its_throughput(tmp_path: Path) -> None:
    fs = {**TIERING, "throughput_capacity_mbps": 1000, "read_cache_sizing_mode": "NO_CACHE"}
    del fs["read_cache_size_gib"]
    path = write(tmp_path, fs)
    path.write_text(
        path.read_text() + "    workload: {parameters: 70e9, tokens: 1e12, mfu: 0.3}\n",
        encoding="utf-8",
    )
    plan = plan_stack(load_stack(str(path)), PlanOptions())
    hits = [f for f in plan.findings if f.rule == "lustre-checkpoint-time"]
    assert len(hits) == 1 and "its throughput capacity" in hits[0].message
    fix = hits[0].fix
    assert fix is not None and fix.edits[0].path[-1] == "throughput_capacity_mbps"
    # 70e9 parameters x 16 bytes in 15 minutes needs about 1,244 MB/s: 2,000 MBps is the smallest offered above
    assert fix.edits[0].value == 2000


# --- a program's resources, the policy pack, the components ------------------------------------------

LUSTRE = "aws:fsx/lustreFileSystem:LustreFileSystem"
PROGRAM_FS = {
    "deploymentType": "PERSISTENT_2",
    "storageType": "INTELLIGENT_TIERING",
    "throughputCapacity": 4000,
    "dataReadCacheConfiguration": {"sizingMode": "USER_PROVISIONED", "size": 1024},
    "subnetIds": ["subnet-00000000"],
}


def program_plan(props: dict[str, Any]) -> Any:
    from planner.policy.planning import plan_resources
    from planner.policy.testing import Spec, stack_args
    from tests.test_readback_rules import cluster

    outcome = plan_resources(stack_args([*cluster(), Spec(LUSTRE, "fs", props)]).resources, {})
    assert outcome.plan is not None, outcome.gaps
    return outcome.plan


@pytest.mark.usefixtures("no_stack_config")
def test_a_programs_intelligent_tiering_file_system_is_read_back_and_planned() -> None:
    plan = program_plan(PROGRAM_FS)
    fs = plan.stack.cluster.lustre
    assert fs.intelligent_tiering and fs.storage_capacity_gib is None
    assert (fs.throughput_capacity_mbps, fs.read_cache_sizing_mode, fs.read_cache_size_gib) == (
        4000,
        "USER_PROVISIONED",
        1024,
    )
    assert [f.rule for f in plan.findings if f.rule.startswith("lustre-")] == []
    assert {i.name for i in plan.cost.line_items} >= {"lustre throughput", "lustre read cache"}


@pytest.mark.usefixtures("no_stack_config")
def test_a_programs_finding_names_its_property() -> None:
    """A fix on a program's file system names the pulumi_aws property (program_terms.PROPERTIES)."""
    from planner.core.input.locations import fix_text

    plan = program_plan({**PROGRAM_FS, "throughputCapacity": 3000})
    hits = [f for f in plan.findings if f.rule == "lustre-intelligent-tiering"]
    assert len(hits) == 1 and "3,000 MBps" in hits[0].message
    words = fix_text(plan.stack, hits[0].fix)
    assert "throughput_capacity" in words and "4000" in words, words
    cache = program_plan({**PROGRAM_FS, "dataReadCacheConfiguration": {"sizingMode": "USER_PROVISIONED", "size": 16}})
    hits = [f for f in cache.findings if f.rule == "lustre-read-cache"]
    assert len(hits) == 1
    assert "data_read_cache_configuration.size" in fix_text(cache.stack, hits[0].fix)


@pytest.mark.usefixtures("no_stack_config")
def test_an_ssd_program_file_system_reads_back_as_before() -> None:
    plan = program_plan(
        {
            "deploymentType": "PERSISTENT_2",
            "storageType": "SSD",
            "storageCapacity": 2400,
            "perUnitStorageThroughput": 250,
        }
    )
    fs = plan.stack.cluster.lustre
    assert fs.storage_type == "SSD" and fs.storage_capacity_gib == 2400 and fs.throughput_capacity_mbps is None


def test_the_packs_resource_policy_checks_an_intelligent_tiering_file_system() -> None:
    from planner.policy import policies
    from planner.policy.testing import Spec, resource_args, violations

    fine = Spec(LUSTRE, "ok", PROGRAM_FS)
    assert violations(policies.lustre_values, resource_args(fine)) == []
    efa = Spec(LUSTRE, "efa", {**PROGRAM_FS, "throughputCapacity": 2000, "efaEnabled": True})
    found = violations(policies.lustre_values, resource_args(efa))
    assert [m.split("]")[0] for m, _ in found] == ["[lustre-intelligent-tiering"]
    assert "multiple of 4,000 MBps" in found[0][0]
    no_cache = Spec(LUSTRE, "nc", {k: v for k, v in PROGRAM_FS.items() if k != "dataReadCacheConfiguration"})
    assert [m.split("]")[0] for m, _ in violations(policies.lustre_values, resource_args(no_cache))] == [
        "[lustre-read-cache"
    ]


def _components(lustre: Any) -> Any:
    """Run a Trn2Cluster with `lustre` under MotoMocks (inside `mock_aws`): the mocks."""
    from planner.components import ClusterArgs, NodeGroupArgs, Trn2Cluster
    from planner.testing import MotoMocks, run

    args = ClusterArgs(availability_zone="us-east-2b", node_groups=[NodeGroupArgs(name="t", count=2)], lustre=lustre)
    return run(lambda: Trn2Cluster("it", args), MotoMocks("us-east-2"))


@pytest.fixture
def components(monkeypatch: pytest.MonkeyPatch) -> Any:
    from moto import mock_aws

    from planner.runtime import declared_clusters as registry

    monkeypatch.setenv("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")
    registry.reset()
    with mock_aws():
        yield
    registry.reset()


@pytest.mark.usefixtures("components")
def test_the_components_create_an_intelligent_tiering_file_system() -> None:
    import boto3

    from planner.components import LustreArgs

    lustre = LustreArgs(
        "PERSISTENT_2",
        storage_type="INTELLIGENT_TIERING",
        throughput_capacity_mbps=4000,
        read_cache_sizing_mode="USER_PROVISIONED",
        read_cache_size_gib=1024,
    )
    sent = _components(lustre).named("it-lustre-fs").inputs
    assert sent["storageType"] == "INTELLIGENT_TIERING" and sent["throughputCapacity"] == 4000
    assert sent["dataReadCacheConfiguration"] == {"sizingMode": "USER_PROVISIONED", "size": 1024}
    assert "storageCapacity" not in sent and "perUnitStorageThroughput" not in sent
    (fs,) = boto3.client("fsx", region_name="us-east-2").describe_file_systems()["FileSystems"]
    assert fs["StorageType"] == "INTELLIGENT_TIERING"


@pytest.mark.usefixtures("components")
def test_the_components_refuse_an_intelligent_tiering_throughput_aws_does_not_offer() -> None:
    from planner.components import LustreArgs

    lustre = LustreArgs(
        "PERSISTENT_2",
        storage_type="INTELLIGENT_TIERING",
        throughput_capacity_mbps=3000,
        read_cache_sizing_mode="NO_CACHE",
    )
    with pytest.raises(Exception, match="lustre-intelligent-tiering"):
        _components(lustre)


def test_a_saved_document_renders_as_the_plan_does(tmp_path: Path) -> None:
    """The document's new fields (a null capacity, the storage type, the throughput capacity, the read cache)
    are written and read back by the one codec: `planner render` of the JSON gives the plan's own table."""
    stack = write(tmp_path, TIERING)
    saved = tmp_path / "plan.json"
    first = run_cli("plan", str(stack), "--format", "json")
    saved.write_text(first.out, encoding="utf-8")
    table = run_cli("plan", str(stack))
    rendered = run_cli("render", str(saved))
    assert rendered.code == 0, rendered.err
    assert rendered.out == table.out
    words = " ".join(table.out.split())  # the table wraps its lines
    assert "Intelligent-Tiering at 4,000 MBps" in words and "1,024 GiB SSD read cache" in words
