"""Rules that say only what AWS says (issue 13): each test quotes the AWS text its rule rests on.

Every test here failed on the rules as they were before: a false error, a figure without a
public source, or a source users cannot open.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import msgspec.structs
import pytest

from planner.core import rules
from planner.core.catalogue import capacity_block_limits as blocks
from planner.core.catalogue import instance_types as catalogue
from planner.core.cost import book as _book
from planner.core.cost.estimate import estimate
from planner.core.input.stack_files import load_stack
from planner.core.planning.pipeline import plan_stack
from planner.core.reading import yaml_lines as yamlload
from planner.core.rules import lustre as lustre_rules
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent


def _findings(stack_file, cluster: str, rule_id: str, region: str = "us-east-2"):  # noqa: ANN001, ANN202
    plan = plan_stack(load_stack(str(stack_file(cluster, region=region))))
    return [f for f in plan.findings if f.rule == rule_id]


def _trn2(extra: str = "", count: int = 1, itype: str = "trn2.48xlarge", purchase: str = "on-demand") -> str:
    return (
        f"availability_zone: us-east-2b\nnode_groups:\n  - name: trainers\n    instance_type: {itype}\n"
        f"    count: {count}\n    purchase: {purchase}\n{extra}"
    )


# --- every rule: a public https source -------------------------------------------------------


def test_every_rule_and_check_has_a_public_https_source() -> None:
    """`planner rules --format json` shows an https source for every rule (issue 13, done when)."""
    out = run_cli("rules", "--format", "json")
    assert out.code == 0, out.err
    listed = json.loads(out.out)
    entries = listed["rules"] if isinstance(listed, dict) else listed
    assert entries
    for r in entries:
        assert re.match(r"^https://[a-z0-9.-]+\.[a-z]{2,}/", r["source"]), r
    for r in rules.known().values():
        assert r.source.startswith("https://"), (r.id, r.source)


# --- every rule: the sentence it rests on (planner/data/rule_sources.yaml) --------------------

ELLIPSIS = re.compile(r"\.\.\.|\u2026")


def _registered() -> dict[str, rules.Rule]:
    return dict(rules.known())


def test_every_rule_and_check_has_an_entry_in_rule_sources() -> None:
    """Every id `planner rules` lists has an entry saying what it rests on: AWS's sentence, planner's policy, or
    what was searched (issue 35: "The rule reference shows each rule's source sentence"). A new rule (such as
    another engineer's FSx for Lustre Intelligent-Tiering rules) fails here, named, until it has one."""
    from planner.core.rules import rule_sources

    entries = rule_sources.load()
    missing = sorted(set(_registered()) - set(entries))
    assert not missing, (
        f"no entry in planner/data/rule_sources.yaml for: {', '.join(missing)} "
        "(add each with its page, its sentence verbatim and the date read, or `policy:` / `unsourced:`)"
    )
    stale = sorted(set(entries) - set(_registered()))
    assert not stale, f"entries in planner/data/rule_sources.yaml for ids no rule or check has: {', '.join(stale)}"


def test_every_entry_quotes_a_public_page_verbatim_and_dated() -> None:
    """Each sentence: a public https page, a non-empty quote with no ellipsis hiding words (an elision is marked
    "[...]"), a read date; a rule resting on AWS has at least one sentence; planner's policy and an unsourced rule
    say so in words."""
    from planner.core.rules import rule_sources

    for rule_id, entry in rule_sources.load().items():
        for q in entry.quotes:
            assert re.match(r"^https://[a-z0-9.-]+\.[a-z]{2,}/", q.page), (rule_id, q.page)
            assert q.quote.strip(), rule_id
            assert not ELLIPSIS.search(q.quote.replace(rule_sources.ELISION, "")), (
                f"{rule_id}: a quote with '...' hides words; copy the sentence whole or mark the gap "
                f"{rule_sources.ELISION}: {q.quote!r}"
            )
            assert q.read.year >= 2026, (rule_id, q.read)
        if entry.kind == "aws":
            assert entry.quotes, f"{rule_id}: rests on AWS but quotes no sentence"
        assert not (entry.policy and entry.unsourced), rule_id


def test_every_entry_quotes_the_rules_declared_source_or_says_why_not() -> None:
    """The page a rule declares (`source`, in SARIF and the reference) is one of the pages its entry quotes, or the
    entry says why not (`source_differs`); an entry with no sentence (policy, unsourced) says it in words."""
    from planner.core.rules import rule_sources

    entries = rule_sources.load()
    mismatched = sorted(
        f"{r.id} (declares {r.source}; quotes {', '.join(entries[r.id].pages)})"
        for r in _registered().values()
        if r.id in entries
        and entries[r.id].quotes
        and r.source not in entries[r.id].pages
        and not entries[r.id].source_differs
    )
    assert not mismatched, "declared source not among the pages quoted: " + "; ".join(mismatched)


def test_rules_command_and_reference_show_each_rules_sentence() -> None:
    """`planner rules` (json: `rests_on`; markdown: the reference's column) and docs/reference/rule-sources.md
    show the sentence; planner's policy says it is planner's."""
    from tools import gen_reference

    out = run_cli("rules", "--format", "json")
    assert out.code == 0, out.err
    listed = {r["id"]: r for r in json.loads(out.out)["rules"]}
    assert listed["efa-single-az"]["rests_on"]["kind"] == "aws"
    assert listed["efa-single-az"]["rests_on"]["quotes"][0]["quote"].startswith(
        "EFA traffic can't cross Availability Zones or VPCs."
    )
    assert listed["imdsv2-required"]["rests_on"]["kind"] == "policy"
    md = run_cli("rules", "--format", "markdown").out
    assert "planner's policy: IMDSv2 is planner's policy" in md
    assert "\"EFA traffic can't cross Availability Zones or VPCs." in md
    page = gen_reference.rule_sources_page()
    assert '| `subnet-single-az` | error | "Each subnet must reside entirely within one Availability Zone' in page
    assert "**unsourced**" in page  # what no stored page states is said, not invented


def test_rule_sources_are_not_read_on_the_plan_path() -> None:
    """Start-up: `planner plan` never loads the rule sources (only `planner rules` and the reference do)."""
    code = (
        "import sys, os; from planner.cli import main; "
        "main(['plan', 'stacks', '--format', 'json', '-o', os.devnull]); "
        "print('planner.core.rules.rule_sources' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False"


# --- 1. lustre-s3-association ---------------------------------------------------------------


def test_scratch_1_accepts_an_s3_import_path(stack_file) -> None:
    """FSx API reference, CreateFileSystemLustreConfiguration: "The following parameters are not
    supported for file systems with the Persistent_2 deployment type. Instead, use
    CreateDataRepositoryAssociation ... AutoImportPolicy, ExportPath, ImportedChunkSize,
    ImportPath"; and AutoImportPolicy is "Available with Scratch and Persistent_1 deployment
    types." SCRATCH_1 takes ImportPath, as planner's component sends it."""
    cluster = _trn2(
        "lustre:\n  deployment_type: SCRATCH_1\n  storage_capacity_gib: 2400\n"
        "  s3_import_path: s3://example-training-data/tokens\n"
    )
    assert _findings(stack_file, cluster, "lustre-s3-association") == []
    dt = lustre_rules.deployment_types()
    assert dt["SCRATCH_1"].s3_link == "import_path"
    assert dt["PERSISTENT_2"].s3_link == "data_repository_association"
    assert "import_path" not in dt["PERSISTENT_2"].s3_links


def test_s3_link_on_a_type_that_accepts_none_is_an_error(stack_file, monkeypatch: pytest.MonkeyPatch) -> None:
    """The FSx for Lustre guide: "Data repository associations, automatic export, and support for
    multiple data repositories aren't available on FSx for Lustre 2.10 file systems or Scratch 1
    file systems." A type without ImportPath and without associations (none ships) would be an
    error: run the rule against such data."""
    types = lustre_rules.deployment_types()
    patched = {**types, "SCRATCH_1": msgspec.structs.replace(types["SCRATCH_1"], s3_links=())}
    stack = load_stack(
        str(
            stack_file(
                _trn2(
                    "lustre:\n  deployment_type: SCRATCH_1\n  storage_capacity_gib: 2400\n"
                    "  s3_import_path: s3://example-training-data/tokens\n"
                )
            )
        )
    )
    monkeypatch.setattr(lustre_rules, "deployment_types", lambda: patched)
    hits = rules.get("lustre-s3-association").run(rules.RuleContext(stack, catalogue.load()))
    assert [(f.severity, f.line) for f in hits] == [("error", 13)]
    assert "neither ImportPath nor a data repository association" in hits[0].message


# --- 2. public-ip-multi-card ----------------------------------------------------------------


def test_public_ip_follows_the_interface_count_not_the_card_count(stack_file) -> None:
    """EC2 API reference, InstanceNetworkInterfaceSpecification.AssociatePublicIpAddress: "The
    public IP address can only be assigned to a network interface for eth0, and can only be
    assigned to a new network interface, not an existing one. You cannot specify more than one
    network interface in the request." One ENA interface (`efa: false`) may have a public IP on
    a 16-card trn2.48xlarge; EFA on every card (16 interfaces) may not."""
    assert _findings(stack_file, _trn2("    public_ip: true\n    efa: false\n"), "public-ip-multi-card") == []
    hits = _findings(stack_file, _trn2("    public_ip: true\n"), "public-ip-multi-card")
    assert [f.severity for f in hits] == ["error"]
    assert "16 network interfaces" in hits[0].message
    assert rules.get("public-ip-multi-card").source.endswith("API_InstanceNetworkInterfaceSpecification.html")


def test_policy_check_counts_declared_interfaces() -> None:
    """The pack's resource check applies the same reading to a launch template: one interface
    with a public IP passes; several fail."""
    from planner.policy import resource_checks as rc

    one = {
        "instanceType": "trn2.48xlarge",
        "networkInterfaces": [{"deviceIndex": 0, "associatePublicIpAddress": "true"}],
    }
    many = {
        "instanceType": "trn2.48xlarge",
        "networkInterfaces": [
            {
                "networkCardIndex": i,
                "deviceIndex": 0,
                "interfaceType": "efa" if i == 0 else "efa-only",
                "associatePublicIpAddress": "true" if i == 0 else "false",
            }
            for i in range(16)
        ],
    }
    assert rc.public_ip(rc.LAUNCH_TEMPLATE, one) == []
    assert len(rc.public_ip(rc.LAUNCH_TEMPLATE, many)) == 1


# --- 3. ultracluster-scale ------------------------------------------------------------------


def test_no_made_up_trainium2_or_h200_ceiling(stack_file) -> None:
    """AWS documents no UltraCluster ceiling for Trainium2 (its re:Invent 2024 material speaks of
    UltraClusters of "hundreds of thousands of Trainium2 chips"), and no H200 figure was found:
    no finding for either, where the rule used to raise an error past 100,000 / 20,000."""
    assert _findings(stack_file, _trn2(count=6251), "ultracluster-scale") == []
    assert _findings(stack_file, _trn2(count=2501, itype="p5en.48xlarge"), "ultracluster-scale") == []


def test_h100_past_the_documented_size_is_a_warning_that_names_its_source(stack_file) -> None:
    """The P5 product page: P5 instances are deployed in EC2 UltraClusters of up to 20,000 H100
    GPUs. A documented size, not a hard limit: a warning that says what AWS documents and where."""
    hits = _findings(stack_file, _trn2(count=2501, itype="p5.48xlarge"), "ultracluster-scale")
    assert [f.severity for f in hits] == ["warning"]
    assert "AWS documents P5 EC2 UltraClusters of up to 20,000 H100" in hits[0].message
    assert "https://aws.amazon.com/ec2/instance-types/p5/" in hits[0].message
    assert rules.get("ultracluster-scale").severity == "warning"


# --- 4. lustre-same-az ----------------------------------------------------------------------

P2 = "lustre:\n  deployment_type: PERSISTENT_2\n  storage_capacity_gib: 2400\n  per_unit_storage_throughput: 250\n"


def test_lustre_in_another_az_is_a_warning_naming_both_costs(stack_file) -> None:
    """FSx for Lustre pricing: "Data transferred 'in' to and 'out' from Amazon FSx across
    Availability Zones (AZs) or VPC Peering connections in the same AWS Region is charged at the
    rate for data transfer within the same AWS Region." Clients in another AZ work, slower and
    at a price."""
    hits = _findings(stack_file, _trn2(P2 + "  availability_zone: us-east-2c\n"), "lustre-same-az")
    assert [f.severity for f in hits] == ["warning"]
    assert "latency" in hits[0].message and "data transfer charges" in hits[0].message


def test_lustre_in_another_az_with_efa_is_an_error(stack_file) -> None:
    """AWS ParallelCluster guide, Elastic Fabric Adapter: "Elastic Fabric Adapter (EFA) isn't
    supported over different availability zones." (the EC2 User Guide's EFA limitations say the
    same). An EFA-enabled file system in another AZ cannot serve its clients over EFA."""
    hits = _findings(stack_file, _trn2(P2 + "  efa_enabled: true\n  availability_zone: us-east-2c\n"), "lustre-same-az")
    assert [f.severity for f in hits] == ["error"]
    assert "EFA traffic cannot cross Availability Zones" in hits[0].message


# --- 5. ultraserver-purchase ----------------------------------------------------------------


def test_on_demand_ultraserver_is_a_warning_citing_capacity_blocks(stack_file) -> None:
    """EC2 User Guide, Capacity Blocks for ML: "You can also use Capacity Blocks to reserve
    capacity for Amazon EC2 UltraServers." DescribeInstanceTypes lists the on-demand usage class
    for trn2u.48xlarge, and no AWS page bars it: a warning, not an error."""
    cluster = (
        "availability_zone: us-east-2b\nnode_groups:\n  - name: ultra\n    instance_type: trn2u.48xlarge\n"
        "    ultraservers: 1\n    purchase: on-demand\n"
    )
    hits = _findings(stack_file, cluster, "ultraserver-purchase")
    assert [f.severity for f in hits] == ["warning"]
    assert (
        rules.get("ultraserver-purchase").source
        == "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html"
    )


def test_describe_instance_types_lists_on_demand_for_trn2u(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # noqa: ANN001
    """Why a warning: EC2 DescribeInstanceTypes (AWS's data, as moto serves it) gives
    trn2u.48xlarge SupportedUsageClasses with capacity-block and on-demand (and spot, in moto 5.2.6)."""
    import boto3
    from moto import mock_aws
    from test_preflight_helpers import isolate

    isolate(monkeypatch, tmp_path)
    with mock_aws():
        info = boto3.client("ec2", region_name="us-east-2").describe_instance_types(InstanceTypes=["trn2u.48xlarge"])
    assert {"capacity-block", "on-demand"} <= set(info["InstanceTypes"][0]["SupportedUsageClasses"])


# --- 6. ultraserver-requires-lustre ---------------------------------------------------------


def test_requires_lustre_says_it_is_planners_policy_and_the_guidance_it_follows() -> None:
    """FSx for Lustre FAQ (https://aws.amazon.com/fsx/lustre/faqs/), "What use cases does Amazon FSx for Lustre
    support?": "Use Amazon FSx for Lustre for workloads where speed matters, such as machine learning, high
    performance computing (HPC), video processing, financial modeling, genome sequencing, and electronic design
    automation (EDA)." Shared storage across UltraServers is planner's choice, not an AWS requirement: the rule
    says it is planner's policy and quotes the guidance it follows, with a page users can open."""
    r = rules.get("ultraserver-requires-lustre")
    assert r.description.startswith("planner's policy (a design rule, not an AWS requirement)")
    assert (
        '"Use Amazon FSx for Lustre for workloads where speed matters, such as machine learning, high performance '
        'computing (HPC)"' in r.description
    )
    assert "datasets and checkpoints" in r.description
    assert r.source == "https://aws.amazon.com/fsx/lustre/faqs/"


# --- 7. Capacity Blocks: regions and the 11:30 UTC end ----------------------------------------


def test_capacity_block_regions_come_from_the_pricing_page_with_a_date(stack_file) -> None:
    """EC2 Capacity Blocks pricing page (https://aws.amazon.com/ec2/capacityblocks/pricing/, as
    mirrored 2026-07-22): p5en.48xlarge blocks are listed in US East (N. Virginia) and US East
    (Ohio) among others, and not in Middle East (UAE). A block in a region the page does not list
    is `purchase-not-sold` (a warning, with the entry's source and date), not a second finding of
    `capacity-block-supported`, which keeps to types never sold in blocks."""
    from planner.core.cost.offers import not_sold

    gone = not_sold("p5en.48xlarge", "me-central-1", "capacity-block")
    assert gone is not None and gone.as_of == "2026-07-22" and gone.source.startswith("https://")
    assert not_sold("p5en.48xlarge", "us-east-1", "capacity-block") is None
    block = _trn2("    capacity_reservation_id: cr-0123456789abcdef0\n", 2, "p5en.48xlarge", "capacity-block")
    east1 = block.replace("us-east-2b", "us-east-1a")
    assert _findings(stack_file, east1, "capacity-block-supported", region="us-east-1") == []
    assert _findings(stack_file, east1, "purchase-not-sold", region="us-east-1") == []
    uae = block.replace("us-east-2b", "me-central-1a")
    hits = _findings(stack_file, uae, "purchase-not-sold", region="me-central-1")
    assert [f.severity for f in hits] == ["warning"] and "2026-07-22" in hits[0].message
    assert _findings(stack_file, uae, "capacity-block-supported", region="me-central-1") == []


def test_cost_notes_say_blocks_end_at_11_30_utc(stack_file) -> None:
    """EC2 User Guide, Find and purchase Capacity Blocks: "All Capacity Blocks end at 11:30AM UTC,
    so the blocks starting on the same day will have durations that are the closest match to your
    desired duration. One block will have a duration that is slightly less than your desired
    duration, while the other will have a duration slightly greater"."""
    block = _trn2(
        "    capacity_reservation_id: cr-0123456789abcdef0\nschedule: {hours: 48}\n",
        2,
        "p5en.48xlarge",
        "capacity-block",
    )
    est = estimate(load_stack(str(stack_file(block))), _book.load_price_book(None))
    assert blocks.END_TIME_NOTE in est.notes
    assert "11:30 UTC" in blocks.END_TIME_NOTE
    on_demand = estimate(load_stack(str(stack_file(_trn2("schedule: {hours: 48}\n", 2)))), _book.load_price_book(None))
    assert blocks.END_TIME_NOTE not in on_demand.notes


# --- 8. peak figures ------------------------------------------------------------------------


def test_trn2_and_p5_peak_notes_say_what_the_figures_are() -> None:
    """Neuron Trn2 architecture page, performance table: "FP8 PFLOPS | 20.8 | 83.2" for one
    trn2.48xlarge and one Trn2 UltraServer, "Sparse PFLOPS | 41 | 164". 83.2 PF is the
    UltraServer's dense FP8 (64 x 1.3 PF), not a sparse per-instance figure."""
    text = json.dumps(yamlload.load_data("catalogue.yaml")[0], default=str)
    text += json.dumps(yamlload.load_data("prices/headlines.yaml")[0], default=str)
    assert "16 x 5.2" not in text
    assert "83.2" in text and "64 x 1.3" in text
    assert "ambiguous" in text  # P5's "16 PFLOPS" is named for what it is: FP8 dense or BF16 sparse


# --- 9. placement groups --------------------------------------------------------------------


def test_capacity_block_placement_finding_cites_aws(stack_file) -> None:
    """EC2 User Guide, Work with Capacity Blocks: "By default, Capacity Blocks deliver
    low-latency, high-throughput network connectivity between the instances inside the Capacity
    Block, so there is no need to use a cluster placement group with a Capacity Block." """
    cluster = _trn2(
        "    capacity_reservation_id: cr-0123456789abcdef0\nplacement_group: cluster\n",
        2,
        "p5en.48xlarge",
        "capacity-block",
    )
    hits = _findings(stack_file, cluster, "placement-group")
    assert len(hits) == 1
    assert "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-using.html" in hits[0].message
    # no stronger than the page: "no need" is information, and the message adds nothing AWS does not say
    assert hits[0].severity == "info"
    assert hits[0].message == (
        'a cluster placement group (declared) holds Capacity Block group(s) trainers: AWS: "By default, Capacity '
        "Blocks deliver low-latency, high-throughput network connectivity between the instances inside the Capacity "
        'Block, so there is no need to use a cluster placement group with a Capacity Block" '
        "(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-using.html)"
    )
    assert "fail" not in hits[0].message and "fail" not in rules.get("placement-group").description
    near_miss = cluster.replace("placement_group: cluster", "placement_group: none")
    assert _findings(stack_file, near_miss, "placement-group") == []


def test_targeted_reservation_is_not_told_to_add_a_placement_group(stack_file) -> None:
    """EC2 User Guide, Use Capacity Reservations with cluster placement groups: "If an existing
    Capacity Reservation is not in a placement group, you can't modify the Capacity Reservation to
    reserve capacity in a placement group. To reserve capacity in a placement group, you must
    create the Capacity Reservation in the placement group." A group with a targeted reservation
    is not told to add a placement group its reservation cannot join."""
    cluster = _trn2("    capacity_reservation_id: cr-0123456789abcdef0\nplacement_group: none\n", 4)
    assert _findings(stack_file, cluster, "placement-group") == []
    assert _findings(stack_file, _trn2("placement_group: none\n", 4), "placement-group")


# --- 10. PERSISTENT_2 minimum capacity ------------------------------------------------------


@pytest.mark.parametrize("throughput", [125, 250, 500, 1000])
def test_persistent_2_takes_1200_gib_per_the_create_file_system_reference(stack_file, throughput: int) -> None:
    """FSx API reference, CreateFileSystem StorageCapacity: "For SCRATCH_2, PERSISTENT_2, and
    PERSISTENT_1 deployment types using SSD storage type, the valid values are 1200 GiB, 2400 GiB,
    and increments of 2400 GiB." The UpdateFileSystem text ("multiples of 2400 GiB") is about
    growing a file system; the data file records both and which one planner uses."""
    raw = open(os.path.join(yamlload.DATA_DIR, "fsx_lustre.yaml"), encoding="utf-8").read()
    assert "UpdateFileSystem" in raw and "1,200 GiB is the minimum" in raw
    fs = f"lustre:\n  deployment_type: PERSISTENT_2\n  storage_capacity_gib: 1200\n  per_unit_storage_throughput: {throughput}\n"
    assert _findings(stack_file, _trn2(fs), "lustre-capacity") == []
    assert _findings(stack_file, _trn2(fs.replace("1200", "1800")), "lustre-capacity")


def test_catalogue_and_price_book_sources_are_public_pages() -> None:
    """No figure points at a file users do not have: every catalogue source and every price in
    the built-in books names an https page."""
    for s in catalogue.load().sources.values():
        assert s.url.startswith("https://"), s
    for name in _book.BUILTIN:
        data = yamlload.load_data(f"prices/{name}.yaml")[0]
        entries = [e for k in ("instances", "lustre") for e in data.get(k) or ()]
        assert entries
        assert all(str(e["source"]).startswith("https://") for e in entries), name
