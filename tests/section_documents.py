"""Hand-built compare, capacity and diff reports for the renderers' snapshot tests
(tools/snapshots.py writes them to tests/snapshots/, tests/test_section_snapshots.py checks them).

Synthetic on purpose (like ruff's fixtures): the figures are made up and stay put, so a price
update touches the price book and never these documents or their snapshots. Each covers what
its renderer branches on: notes and footnotes, a row without a total, Capacity Block rows priced
from an offering, several needs and regions, a pick that misses, a stack's booked blocks.
"""

from __future__ import annotations

import msgspec.structs

from planner.core.document import InputProblem, Report, codec
from planner.core.document.block_offerings_section import (
    BookedBlock,
    CapacityExtension,
    CapacityNeed,
    CapacityOption,
    CapacityPick,
    CapacityQuery,
    CapacitySearch,
    ExtensionOffer,
    ExtensionPick,
    NextSteps,
    RegionAnswer,
)
from planner.core.document.build_diff import diff_section
from planner.core.document.compare_section import (
    BookPrice,
    Candidate,
    CompareInputs,
    CompareSection,
    ListedWithoutCost,
    Offered,
)
from planner.core.document.stacks import StackReport
from tests.snapshot_documents import RULES, _cost, gpu_stack, ultraserver_stack

BOOK_PAGE = "https://aws.amazon.com/ec2/pricing/on-demand/"
CB_PAGE = "https://aws.amazon.com/ec2/capacityblocks/pricing/"
OFFERINGS_PAGE = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeCapacityBlockOfferings.html"
PURCHASE_PAGE = "https://docs.aws.amazon.com/cli/latest/reference/ec2/purchase-capacity-block.html"
EXTENSION_PAGE = (
    "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeCapacityBlockExtensionOfferings.html"
)


def compare_report() -> Report:
    """A fixed-count job: on-demand and Capacity Block rows, notes shared between rows, a row without a
    total, an UltraServer type listed without a cost."""
    cands = (
        Candidate(
            "trn2.48xlarge",
            "capacity-block",
            16,
            None,
            120.5,
            144,
            82_400.64,
            3.3509,
            35.7608,
            10.672,
            0.4,
            CB_PAGE,
            "2026-08-01",
            "test-book",
        ),
        Candidate(
            "p5en.48xlarge",
            "on-demand",
            16,
            None,
            98.25,
            98.25,
            94_320.0,
            3.0364,
            60.0,
            19.76,
            0.4,
            BOOK_PAGE,
            "2026-07-15",
            "test-book",
            ("assumption: the region's rate is the us-east-1 rate",),
        ),
        Candidate(
            "trn2u.48xlarge",
            "capacity-block",
            16,
            None,
            120.5,
            144,
            98_000.0,
            4.0,
            42.7,
            10.672,
            0.4,
            CB_PAGE,
            "2026-08-01",
            "test-book",
            (
                "rounded up to whole UltraServers of 4 (u-trn2x64)",
                "assumption: the region's rate is the us-east-1 rate",
            ),
        ),
        Candidate(
            "p5.48xlarge",
            "capacity-block",
            16,
            None,
            8_012.4,
            None,
            None,
            2.1,
            31.464,
            15.0,
            0.4,
            CB_PAGE,
            "2026-08-01",
            "test-book",
            ("run longer than the longest Capacity Block (182 days): billed as consecutive blocks",),
        ),
    )
    listed = (
        ListedWithoutCost(
            "u-trn3x144",
            "Trn3 UltraServer (144 chips)",
            144,
            "Trainium3",
            363.5,
            12.5,
            "the EC2 API lists no instance type for it yet and AWS publishes no price",
            "https://aws.amazon.com/ai/machine-learning/trainium/",
        ),
    )
    notes = (
        "p5en: a sparse headline is listed as a note, never used",
        "not offered in us-east-2 (left out): p6-b300.48xlarge",
        "listed without a cost (the EC2 API lists no instance type for them and AWS publishes no price yet): "
        "Trn3 UltraServer (144 chips) (144 Trainium3, 363.5 dense PFLOPS bf16, 12.5 h on one)",
    )
    inputs = CompareInputs(70e9, 2e12, "bf16", (("*", 0.4), ("trn2", 0.35)), "us-east-2", 16, None)
    return Report("compare", compare=CompareSection("test-book", inputs, cands, listed, notes))


def compare_deadline_report() -> Report:
    """A deadline job with `--capacity`: one row priced from an offering (the book beside it), one where
    none was found, the cheapest count above the smallest."""
    offering = CapacityOption(
        "trn2.48xlarge",
        None,
        ("cb-0aa",),
        "us-east-2",
        "us-east-2a",
        False,
        None,
        "2026-12-08T11:30:00Z",
        "2026-12-14T11:30:00Z",
        144.0,
        143.5,
        24,
        (24,),
        90_000.0,
        26.0417,
        "2026-12-13T01:30:00Z",
        True,
    )
    cands = (
        Candidate(
            "trn2.48xlarge",
            "capacity-block",
            24,
            20,
            110.0,
            144.0,
            90_000.0,
            2.4,
            26.0417,
            10.672,
            0.35,
            OFFERINGS_PAGE + " (cb-0aa)",
            "2026-12-01",
            "Capacity Block offerings",
            (
                "cheapest count that meets the deadline; the smallest, 20, runs 132.0 h billed 168 h for $120,000.00",
                "priced from the offering cb-0aa in us-east-2a, 2026-12-08T11:30:00Z to 2026-12-14T11:30:00Z: "
                "$90,000.00 upfront; the book's figure: $35.76/h, $123,581.57 in all (2026-08-01)",
            ),
            Offered(offering, BookPrice(35.7608, 123_581.57, CB_PAGE, "2026-08-01", "test-book")),
        ),
        Candidate(
            "p5en.48xlarge",
            "capacity-block",
            12,
            12,
            130.0,
            144,
            103_680.0,
            3.0364,
            60.0,
            19.76,
            0.35,
            CB_PAGE,
            "2026-08-01",
            "test-book",
            ("no Capacity Block offering for 12 instances and 130.0 h (none offered): priced from the book",),
            Offered(None),
        ),
        Candidate(
            "p5en.48xlarge",
            "on-demand",
            12,
            12,
            130.0,
            130.0,
            140_400.0,
            4.5547,
            90.0,
            19.76,
            0.35,
            BOOK_PAGE,
            "2026-07-15",
            "test-book",
        ),
    )
    inputs = CompareInputs(70e9, 1e12, "fp8", (("*", 0.35),), "us-east-2", None, 168.0)
    notes = (
        "Capacity Block rows: priced from the offerings DescribeCapacityBlockOfferings showed in us-east-2 on "
        "2026-12-01 where one was found, the price book's figure beside them",
    )
    return Report("compare", compare=CompareSection("test-book", inputs, cands, (), notes))


def compare_empty_report() -> Report:
    inputs = CompareInputs(8e9, 1e11, "bf16", (("*", 0.4),), "eu-north-1", 2, None)
    return Report(
        "compare",
        compare=CompareSection(
            "my | book",
            inputs,
            (),
            (),
            ("no price in book 'my | book' for eu-north-1 (left out): trn2.48xlarge (on-demand)",),
        ),
    )


def _need(
    instances: int = 16,
    itype: str = "p5en.48xlarge",
    basis: str = "--hours",
    hours: float = 336.0,
    ultraserver: str | None = None,
    ultraservers: int | None = None,
) -> CapacityNeed:
    return CapacityNeed(itype, instances, ultraserver, ultraservers, hours, basis)


def capacity_report() -> Report:
    """A search of three regions (one without an answer): two options, the cheapest misses the deadline."""
    late = CapacityOption(
        "p5en.48xlarge",
        None,
        ("cb-0e1a",),
        "us-east-1",
        "us-east-1a",
        False,
        None,
        "2027-01-10T11:30:00Z",
        "2027-01-24T11:30:00Z",
        336.0,
        335.5,
        16,
        (16,),
        280_000.0,
        52.0833,
        "2027-01-24T11:00:00Z",
        False,
    )
    ok = CapacityOption(
        "p5en.48xlarge",
        None,
        ("cb-0e2b0", "cb-0e2b1"),
        "us-east-2",
        "us-east-2b",
        False,
        None,
        "2026-12-20T11:30:00Z",
        "2027-01-03T11:30:00Z",
        336.0,
        335.5,
        80,
        (64, 16),
        1_400_000.0,
        52.0833,
        "2027-01-03T11:00:00Z",
        True,
    )
    lz = CapacityOption(
        "p5en.48xlarge",
        None,
        ("cb-0lz",),
        "us-west-2",
        "us-west-2-lax-1a",
        True,
        "us-west-2-lax-1",
        "2026-12-14T11:30:00Z",
        "2026-12-28T11:30:00Z",
        336.0,
        335.5,
        16,
        (16,),
        300_000.0,
        55.8036,
        "2026-12-28T11:00:00Z",
        True,
    )
    asked = (CapacityQuery(336, "p5en.48xlarge", 16), CapacityQuery(504, "p5en.48xlarge", 16))
    regions = (
        RegionAnswer("us-east-1", "p5en.48xlarge", asked, 1, ("cb-0e1a",), None, None),
        RegionAnswer("us-east-2", "p5en.48xlarge", asked, 2, ("cb-0e2b0", "cb-0e2b1"), None, None),
        RegionAnswer("us-west-2", "p5en.48xlarge", asked, 1, ("cb-0lz",), None, None),
        RegionAnswer(
            "eu-north-1", "p5en.48xlarge", asked, 0, (), "UnauthorizedOperation: not allowed", "UnauthorizedOperation"
        ),
    )
    search = CapacitySearch(
        (_need(80, basis="schedule.hours"),),
        "train",
        "stacks/Pulumi.train.yaml",
        None,
        "2027-01-06T00:00:00Z",
        1_500_000.0,
        regions,
        (ok, lz, late),
        CapacityPick(ok, True, None),
        NextSteps(
            (
                "aws ec2 purchase-capacity-block --region us-east-2 --capacity-block-offering-id cb-0e2b0 "
                "--instance-platform Linux/UNIX",
                "aws ec2 purchase-capacity-block --region us-east-2 --capacity-block-offering-id cb-0e2b1 "
                "--instance-platform Linux/UNIX",
            ),
            (
                "node_groups.train: purchase: capacity-block",
                "node_groups.train: availability_zone: us-east-2b",
                "schedule.hours: 336",
            ),
        ),
        (
            "the workload needs 340.2 h at the declared MFU, more than schedule.hours (336.0 h); searched for schedule.hours",
        ),
        OFFERINGS_PAGE,
        PURCHASE_PAGE,
        30,
    )
    return Report("capacity", capacity=search)


def capacity_nothing_report() -> Report:
    """Two alternative needs (an UltraServer type among them), no option, a pick that does not exist."""
    regions = (
        RegionAnswer(
            "us-east-1",
            "u-p6e-gb200x72",
            (CapacityQuery(24, ultraserver_type="u-p6e-gb200x72", ultraserver_count=1),),
            0,
            (),
            None,
            None,
        ),
        RegionAnswer(
            "us-east-1", "p5.48xlarge", (CapacityQuery(24, "p5.48xlarge", 2),), 0, (), "timed out after 10 s", "Timeout"
        ),
    )
    search = CapacitySearch(
        (
            _need(18, "p6e-gb200.36xlarge", "--hours", 20.0, "u-p6e-gb200x72", 1),
            _need(2, "p5.48xlarge", "--hours", 20.0),
        ),
        None,
        "<command line>",
        "2026-12-10T08:00:00Z",
        None,
        None,
        regions,
        (),
        None,
        None,
        (),
        OFFERINGS_PAGE,
        PURCHASE_PAGE,
        30,
    )
    return Report("capacity", capacity=search)


def capacity_extension_report() -> Report:
    """A stack's two booked blocks: one covers the run, one is short and has two extension offerings."""
    blocks = (
        BookedBlock(
            "cr-0aaa",
            "us-east-2a",
            "p6e-gb200.36xlarge",
            18,
            "2026-12-08T11:30:00Z",
            "2026-12-22T11:30:00Z",
            336.0,
            335.5,
            True,
            None,
            0.0,
            (),
            (),
            None,
        ),
        BookedBlock(
            "cr-0bbb",
            "us-east-2a",
            "p6e-gb200.36xlarge",
            18,
            "2026-12-09T11:30:00Z",
            "2026-12-16T11:30:00Z",
            168.0,
            167.5,
            False,
            None,
            144.5,
            (168,),
            (
                ExtensionOffer("cbe-01", "2026-12-16T11:30:00Z", "2026-12-23T11:30:00Z", 168, 311.5, 120_000.0, "USD"),
                ExtensionOffer("cbe-02", "2026-12-16T11:30:00Z", "2026-12-23T11:30:00Z", 168, 311.5, 125_000.0, "USD"),
            ),
            ExtensionPick("cbe-01", 120_000.0, "2026-12-23T11:30:00Z"),
        ),
    )
    ext = CapacityExtension(
        _need(36, "p6e-gb200.36xlarge", "workload", 300.0, "u-p6e-gb200x72", 2),
        "gb200",
        "stacks/Pulumi.gb200.yaml",
        "2026-12-24T00:00:00Z",
        100_000.0,
        "us-east-2",
        None,
        None,
        "2026-12-09T11:30:00Z",
        "2026-12-21T23:30:00Z",
        False,
        True,
        blocks,
        120_000.0,
        False,
        NextSteps(
            (
                "aws ec2 purchase-capacity-block-extension --region us-east-2 --capacity-block-extension-offering-id "
                "cbe-01 --capacity-reservation-id cr-0bbb",
            ),
            (
                "capacity_reservation_id: [cr-0aaa, cr-0bbb] (unchanged: the extension lengthens cr-0bbb, which then "
                "ends 2026-12-23T11:30:00Z)",
            ),
        ),
        EXTENSION_PAGE,
    )
    return Report("capacity", capacity=ext)


def capacity_extension_failed_report() -> Report:
    """A resource group whose blocks could not be read."""
    ext = CapacityExtension(
        _need(16, basis="schedule.hours", hours=100.0),
        "train",
        "stacks/Pulumi.train.yaml",
        None,
        None,
        "us-east-2",
        "arn:aws:resource-groups:us-east-2:123456789012:group/blocks",
        "the resource group arn:aws:resource-groups:us-east-2:123456789012:group/blocks holds no capacity reservation",
        None,
        None,
        False,
        None,
        (),
        None,
        None,
        None,
        EXTENSION_PAGE,
    )
    return Report("capacity", capacity=ext)


def _renamed(s: StackReport, name: str, file: str) -> StackReport:
    return msgspec.structs.replace(
        s, name=name, file=file, findings=tuple(msgspec.structs.replace(f, file=file) for f in s.findings)
    )


def _smaller_gpu() -> StackReport:
    """The GPU stack before the change: one evals instance fewer, and one EFA finding fewer (it is added)."""
    s = gpu_stack()
    assert s.cost is not None
    items = [codec.dump(i) for i in s.cost.line_items]
    items[1].update(quantity=100, total_usd=5000.0, hourly_usd=50.0, instances=1)
    return msgspec.structs.replace(
        s, findings=tuple(f for f in s.findings if "'evals'" not in f.message), cost=_cost(items, 100)
    )


def diff_report() -> Report:
    """A change to three stacks of four: one changed (its total unknown: a price is missing on both sides),
    one unchanged, one removed, one added; findings added."""
    base = Report(
        "plan",
        stacks=(
            _smaller_gpu(),
            ultraserver_stack(),
            _renamed(ultraserver_stack(), "ultra-old", "main:stacks/Pulumi.ultra-old.yaml"),
        ),
        rules=RULES,
    )
    head = Report(
        "diff",
        stacks=(
            gpu_stack(),
            ultraserver_stack(),
            _renamed(ultraserver_stack(), "ultra-prod", "stacks/Pulumi.ultra-prod.yaml"),
        ),
        rules=RULES,
    )
    return msgspec.structs.replace(head, diff=diff_section(base, head, "main", "working tree", "synthetic"))


def diff_pair_report() -> Report:
    """Two stack files of different names compared with each other (`a -> b`): the head is not shown in full."""
    before = _renamed(ultraserver_stack(), "dev", "old/Pulumi.dev.yaml")
    after = msgspec.structs.replace(_renamed(gpu_stack(), "prod", "new/Pulumi.prod.yaml"), findings=())
    base, head = Report("plan", stacks=(before,), rules=RULES), Report("diff", stacks=(after,), rules=RULES)
    return msgspec.structs.replace(
        head, diff=diff_section(base, head, "old/Pulumi.dev.yaml", "new/Pulumi.prod.yaml", "synthetic", pair=True)
    )


def compare_problems_report() -> Report:
    """`planner compare` stopped by its command line: the problem alone (nothing compared)."""
    return Report(
        "compare",
        problems=(
            InputProblem(
                "<command line>",
                None,
                "--mfu",
                "expected a fraction of peak between 0.01 and 1 (such as 0.4), got '1.5'",
            ),
        ),
    )


def capacity_problems_report() -> Report:
    """`planner capacity` stopped by its input before asking AWS: a stack file's line and an option (nothing searched)."""
    return Report(
        "capacity",
        problems=(
            InputProblem(
                "stacks/Pulumi.train.yaml",
                9,
                "node_groups",
                "no node group with purchase: capacity-block; expected one, or use --instance-type",
            ),
            InputProblem("<command line>", None, "--hours", "expected --hours H, or --parameters, --tokens and --mfu"),
        ),
    )


REPORTS = {
    "compare": compare_report,
    "compare-deadline": compare_deadline_report,
    "compare-empty": compare_empty_report,
    "compare-problems": compare_problems_report,
    "capacity": capacity_report,
    "capacity-nothing": capacity_nothing_report,
    "capacity-extension": capacity_extension_report,
    "capacity-extension-failed": capacity_extension_failed_report,
    "capacity-problems": capacity_problems_report,
    "diff": diff_report,
    "diff-pair": diff_pair_report,
}
