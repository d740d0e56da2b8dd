"""Price books: shipped entries are sourced and dated; user files win; bad files exit 2."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cost_support import SOURCE, make_book, write_book

from planner.core.cost import BUILTIN, PriceBook, load_price_book
from planner.core.cost.book import builtin, is_date
from planner.core.reading.problems import InputError
from tests.conftest import no_plan, run_cli

EXACT_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@pytest.mark.parametrize("name", BUILTIN)
def test_every_shipped_price_has_a_source_and_an_exact_date(name: str) -> None:
    """Issue 35, item 4: every price has a source and an exact day (a year or a month alone is not one);
    so has every "unknown" entry, which says why a key has no price."""
    book = builtin(name)
    entries = book.entries()
    assert entries, name
    for key, price in entries:
        assert price.source.startswith("https://") or price.source.startswith("shared/seeds/"), key
        assert EXACT_DATE.match(price.as_of) and is_date(price.as_of), (key, price.as_of)
        assert price.usd > 0, key
    for ikey, unknown in book.unknown.items():
        assert unknown.source.startswith("https://") and unknown.reason, ikey
        assert EXACT_DATE.match(unknown.as_of) and is_date(unknown.as_of), (ikey, unknown.as_of)


FSX_COPY = (
    "https://github.com/lamngockhuong/aws-price/blob/85326f7be3051f291ec48b88c53b98615c8f8c7c/lib/data/pricing/fsx.json"
)
# the entries whose tier the FSx pricing page gave when it was read (its figures, no day recorded); the copy of
# AWS's pricing-page data (published 2025-10-16) dates them
LABELLED = {
    ("us-west-2", "PERSISTENT_1", 50),
    ("us-west-2", "PERSISTENT_1", 100),
    ("us-west-2", "PERSISTENT_1", 200),
    ("us-east-1", "PERSISTENT_2", 125),
}


def test_every_lustre_price_is_dated_by_its_copy_and_says_how_its_label_was_read() -> None:
    """The FSx for Lustre rates come from one copy of AWS's FSx pricing-page data (published 2025-10-16), which
    gives no deployment type or tier: each entry is dated by that copy, and each whose type or tier was not read
    labelled from the pricing page says in `assumption` that it is inferred, from which rate code, and how."""
    lustre = builtin("current").lustre
    assert lustre
    for (region, dtype, tput), price in lustre.items():
        assert (price.source, price.as_of) == (FSX_COPY, "2025-10-16"), (region, dtype, tput)
        if (region, dtype, tput) in LABELLED:
            continue
        assert price.assumption is not None, (region, dtype, tput)
        assert "inferred" in price.assumption and "rate code" in price.assumption, (region, dtype, tput)
        if dtype == "SCRATCH_2":
            assert "read as SCRATCH_2" in price.assumption
        else:
            assert f"{tput} MB/s/TiB" in price.assumption
            if (dtype, tput) in {("PERSISTENT_2", 250), ("PERSISTENT_2", 500), ("PERSISTENT_2", 1000)}:
                assert "in price order" in price.assumption and "no source found names the tier" in price.assumption
    # one rate code per tier in every region: the tier is read from the code, the same everywhere
    codes: dict[tuple[str, int | None], set[str]] = {}
    for (_, dtype, tput), price in lustre.items():
        found = re.search(r"under (?:one )?rate code \(?([\w-]{43})", price.assumption or "")
        if found:
            codes.setdefault((dtype, tput), set()).add(found.group(1))
    assert codes and all(len(c) == 1 for c in codes.values()), codes
    assert len({next(iter(c)) for c in codes.values()}) == len(codes)  # and a different code for each tier


def test_capacity_block_prices_say_where_their_region_comes_from() -> None:
    """The Capacity Blocks pricing page prices per region: each entry says how its region is known
    (an assumption when the figure was read without one, else the mirror that lists the region)."""
    for (itype, region, purchase), price in builtin("current").instances.items():
        if purchase == "capacity-block":
            said = f"{price.assumption or ''} {price.note or ''}"
            assert "region" in said or "mirror" in said, (itype, region)


def test_unknown_prices_stay_unknown_in_the_shipped_book() -> None:
    book = load_price_book(None)
    assert book.instance("trn2.48xlarge", "ap-south-2", "on-demand") is None  # AWS published a rate for us-east-2 only
    assert book.instance("p5e.48xlarge", "us-east-2", "on-demand") is None  # not sold: not-sold.yaml says so
    assert book.instance("p5en.48xlarge", "eu-west-1", "on-demand") is None  # not a catalogue region of p5en
    assert book.lustre_price("us-east-2", "SCRATCH_1", None) is None  # no public source names it
    assert book.lustre_price("sa-east-1", "PERSISTENT_2", 250) is None  # not in the pricing-page copy


def test_trn2_on_demand_is_unknown_with_the_reason(stack_file) -> None:  # noqa: ANN001
    """The AWS Price List as instances.vantage.sh copied it on 2026-01-21 (tsaol/aws-gpu, data/trn2_instances.js,
    "// Last updated: 2026-01-21") lists trn2.48xlarge with `"pricing": {}`: no on-demand rate in any region. The
    only copy with one is AWS's on-demand pricing-page data of 2025-04-04 (85.964 USD/h in us-east-2), which no
    later copy confirms. So the book prices no on-demand trn2.48xlarge and says why on the line item (the case);
    a Capacity Block of the same type stays priced (the near miss)."""
    from planner.core.catalogue.instance_types import load
    from planner.core.cost.estimate import estimate
    from planner.core.input.stack_files import load_stack

    book = load_price_book(None)
    assert book.instance("trn2.48xlarge", "us-east-2", "on-demand") is None
    why = book.unknown_instance("trn2.48xlarge", "us-east-2", "on-demand")
    assert why is not None and why.as_of == "2026-01-21" and why.source.endswith("/data/trn2_instances.js")
    assert "lists no on-demand rate for trn2.48xlarge" in why.reason and "2025-04-04" in why.reason
    assert book.instance("trn2.48xlarge", "us-east-2", "capacity-block") is not None

    def line(purchase: str):  # type: ignore[no-untyped-def]
        cluster = (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: t, instance_type: trn2.48xlarge, count: 2, "
            f"purchase: {purchase}}}\nplacement_group: none\nschedule: {{hours: 168}}\n"
        )
        return estimate(load_stack(str(stack_file(cluster, "us-east-2", purchase))), book, load()).line_items[0]

    unknown = line("on-demand")
    assert unknown.price is None and unknown.note is not None
    assert unknown.note.startswith("no on-demand price for trn2.48xlarge in us-east-2 in price book 'current': ")
    assert why.reason in unknown.note and "as of 2026-01-21" in unknown.note
    assert line("capacity-block").price is not None


def test_a_price_in_an_overlay_answers_an_unknown_and_an_unknown_takes_a_price_back(tmp_path: Path) -> None:
    """A user's file wins where keys are equal, whether it prices a key the built-in book calls unknown or calls
    unknown a key the built-in book prices; one file may not do both for one key."""
    path = write_book(
        tmp_path,
        f"""\
instances:
  - {{instance_type: trn2.48xlarge, region: us-east-2, purchase: on-demand, usd_per_hour: 40.0, source: "{SOURCE}", as_of: 2026-12-01}}
unknown:
  - {{instance_type: p5en.48xlarge, region: us-east-1, purchase: on-demand, reason: "our contract rate is not public", source: "{SOURCE}", as_of: 2026-12-01}}
""",
    )
    layered = load_price_book(str(path))
    assert layered.instance("trn2.48xlarge", "us-east-2", "on-demand").usd == 40.0
    assert layered.unknown_instance("trn2.48xlarge", "us-east-2", "on-demand") is None
    assert layered.instance("p5en.48xlarge", "us-east-1", "on-demand") is None
    assert (
        layered.unknown_instance("p5en.48xlarge", "us-east-1", "on-demand").reason == "our contract rate is not public"
    )
    both = write_book(
        tmp_path,
        f"""\
instances:
  - {{instance_type: trn2.48xlarge, region: us-east-2, purchase: on-demand, usd_per_hour: 40.0, source: "{SOURCE}", as_of: 2026-12-01}}
unknown:
  - {{instance_type: trn2.48xlarge, region: us-east-2, purchase: on-demand, reason: "r", source: "{SOURCE}", as_of: 2026-12-01}}
""",
        "both.yaml",
    )
    with pytest.raises(InputError, match="a second price for trn2.48xlarge on-demand in us-east-2"):
        load_price_book(str(both))


def test_capacity_block_book_of_2024_is_selectable_by_name() -> None:
    book = load_price_book("capacity-blocks-2024")
    assert book.name == "capacity-blocks-2024"
    assert {k[0] for k in book.instances} == {"p5en.48xlarge", "trn2.48xlarge"}
    assert {k[2] for k in book.instances} == {"capacity-block"}
    assert all(p.as_of == "2024-12-03" and p.assumption for p in book.instances.values())


def test_user_file_takes_precedence_and_keeps_the_rest(tmp_path: Path) -> None:
    path = write_book(
        tmp_path,
        f"""\
instances:
  - {{instance_type: p5en.48xlarge, region: us-east-1, purchase: on-demand, usd_per_hour: 1.5, source: "{SOURCE}", as_of: 2026-02-01}}
""",
    )
    base = load_price_book(None)
    layered = load_price_book(str(path))
    price = layered.instance("p5en.48xlarge", "us-east-1", "on-demand")
    assert price is not None and price.usd == 1.5 and price.book == "prices.yaml" and price.as_of == "2026-02-01"
    assert base.instance("p5en.48xlarge", "us-east-1", "on-demand").usd != 1.5  # the built-in book is unchanged
    assert layered.instance("p5.48xlarge", "us-east-1", "on-demand") == base.instance(
        "p5.48xlarge", "us-east-1", "on-demand"
    )
    assert layered.name == "current + prices.yaml"


def test_overlay_takes_plain_data_for_live_prices() -> None:
    book = PriceBook("empty").overlay(
        {
            "instances": [
                {
                    "instance_type": "trn2.48xlarge",
                    "region": "us-east-2",
                    "purchase": "on-demand",
                    "usd_per_hour": 3.25,
                    "source": SOURCE,
                    "as_of": "2026-03-04",
                }
            ]
        },
        "aws-price-list",
    )
    price = book.instance("trn2.48xlarge", "us-east-2", "on-demand")
    assert price is not None and price.usd == 3.25 and price.book == "aws-price-list"


def test_derived_price_carries_its_basis_and_a_direct_entry_wins() -> None:
    book = make_book()
    derived = book.instance("trn2u.48xlarge", "us-east-2", "capacity-block")
    assert derived is not None and derived.usd == 8.0
    assert "test basis: same chips" in derived.assumption and "trn2.48xlarge" in derived.assumption
    direct = book.overlay(
        {
            "instances": [
                {
                    "instance_type": "trn2u.48xlarge",
                    "region": "us-east-2",
                    "purchase": "capacity-block",
                    "usd_per_hour": 7.0,
                    "source": SOURCE,
                    "as_of": "2026-03-04",
                }
            ]
        },
        "direct",
    )
    assert direct.instance("trn2u.48xlarge", "us-east-2", "capacity-block").usd == 7.0
    assert direct.instance("trn2u.48xlarge", "us-east-2", "capacity-block").assumption is None
    assert book.instance("trn2u.48xlarge", "us-east-1", "capacity-block") is None  # no base price there


def test_scratch_lustre_ignores_throughput_in_its_key() -> None:
    book = make_book()
    assert book.lustre_price("us-east-2", "SCRATCH_2", None).usd == 0.5
    assert book.lustre_price("us-east-2", "SCRATCH_2", 200).usd == 0.5
    assert book.lustre_price("us-east-2", "PERSISTENT_2", 250).usd == 0.25
    assert book.lustre_price("us-east-2", "PERSISTENT_2", 500) is None


BAD = [
    ("usd_per_hour: abc", 3, "instances[0].usd_per_hour", "expected a positive number"),
    ("usd_per_hour: 0", 3, "instances[0].usd_per_hour", "expected a positive number"),
    ("usd_per_hour: 1.0, as_of: last week", 3, "instances[0].as_of", "expected a date"),
    ("usd_per_hour: 1.0, prise: 2", 3, "instances[0].prise", "did you mean 'price'"),
]


def _entry(extra: str) -> str:
    return (
        "instances:\n"
        "  # a comment line\n"
        f"  - {{instance_type: trn2.48xlarge, region: us-east-2, purchase: on-demand, {extra}, source: x, as_of: 2026-01-01}}\n"
    )


@pytest.mark.parametrize(("extra", "line", "key", "expected"), BAD)
def test_validation_errors_name_file_line_key_and_expectation(
    tmp_path: Path, stack_file, extra: str, line: int, key: str, expected: str
) -> None:
    text = _entry(extra).replace(", source: x, as_of: 2026-01-01", ", source: x") if "as_of" in extra else _entry(extra)
    if "prise" in extra:
        expected = "unknown key"
    path = write_book(tmp_path, text)
    stack = stack_file(
        "availability_zone: us-east-2a\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}\n"
    )
    res = run_cli("plan", str(stack), "--price-book", str(path))
    assert res.code == 2, res.err
    assert no_plan(res.out)
    err = res.err.strip().splitlines()
    assert len(err) == 1
    assert f"{path}:{line}: {key}: " in err[0] and expected in err[0]


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        (
            "instances:\n  - {instance_type: trn9.huge, region: us-east-2, purchase: on-demand, usd_per_hour: 1, source: x, as_of: 2026}\n",
            "instances[0].instance_type",
            "expected an instance type AWS lists",
        ),
        (
            "instances:\n  - {instance_type: trn2.48xlarge, region: us-east-2, purchase: reserved, usd_per_hour: 1, source: x, as_of: 2026}\n",
            "instances[0].purchase",
            "expected one of on-demand, capacity-block, spot",
        ),
        (
            "instances:\n  - {instance_type: trn2.48xlarge, region: us-east-2, purchase: on-demand, usd_per_hour: 1, source: x}\n",
            "instances[0]",
            "missing required key 'as_of'",
        ),
        (
            "lustre:\n  - {region: us-east-2, deployment_type: PERSISTENT_2, usd_per_gb_month: 0.2, source: x, as_of: 2026}\n",
            "lustre[0]",
            "per_unit_storage_throughput",
        ),
        ("\ninstances: {}\n", "instances", "expected a list"),
        # dates that have the right shape but are not dates
        (
            "instances:\n  - {instance_type: trn2.48xlarge, region: us-east-2, purchase: on-demand, usd_per_hour: 1, source: x, as_of: 2026-13-45}\n",
            "instances[0].as_of",
            "expected a date",
        ),
        (
            "instances:\n  - {instance_type: trn2.48xlarge, region: us-east-2, purchase: on-demand, usd_per_hour: 1, source: x, as_of: 2026-02-30}\n",
            "instances[0].as_of",
            "expected a date",
        ),
        (
            "lustre:\n  - {region: us-east-2, deployment_type: SCRATCH_2, usd_per_gb_month: 0.2, source: x, as_of: 2026-00}\n",
            "lustre[0].as_of",
            "expected a date",
        ),
        # EBS: a volume type planner prices, each charge its own price key, with its source and date
        (
            "ebs:\n  - {region: us-east-2, volume_type: standard, usd_per_gb_month: 0.05, source: x, as_of: 2026}\n",
            "ebs[0].volume_type",
            "expected one of gp2, gp3, io1, io2, st1, sc1",
        ),
        (
            "ebs:\n  - {region: us-east-2, volume_type: gp2, charge: iops, usd_per_iops_month: 0.1, source: x, as_of: 2026}\n",
            "ebs[0].charge",
            "EBS gp2 has no iops charge; expected one of: storage",
        ),
        (
            "ebs:\n  - {region: us-east-2, volume_type: io1, charge: iops, usd_per_gb_month: 0.065, source: x, as_of: 2026}\n",
            "ebs[0].usd_per_gb_month",
            "the iops price is given as 'usd_per_iops_month' (USD per IOPS-month)",
        ),
        (
            "ebs:\n  - {region: us-east-2, volume_type: gp3, charge: throughput, source: x, as_of: 2026}\n",
            "ebs[0]",
            "missing required key 'usd_per_mibps_month' (USD per MiBps-month) for the throughput price",
        ),
        (
            "ebs:\n  - {region: us-east-2, volume_type: io2, charge: iops-tier-4, usd_per_iops_month: 0.03, source: x, as_of: 2026}\n",
            "ebs[0].charge",
            "expected one of storage, iops, iops-tier-2, iops-tier-3, throughput",
        ),
        (
            "ebs:\n  - {region: us-east-2, volume_type: gp3, usd_per_gb_month: 0.08, as_of: 2026}\n",
            "ebs[0]",
            "missing required key 'source'",
        ),
        (
            "ebs:\n  - {region: us-east-2, volume_type: gp3, usd_per_gb_month: free, source: x, as_of: 2026}\n",
            "ebs[0].usd_per_gb_month",
            "expected a positive number",
        ),
    ],
)
def test_more_validation_errors(tmp_path: Path, text: str, key: str, expected: str) -> None:
    path = write_book(tmp_path, text)
    with pytest.raises(InputError) as exc:
        load_price_book(str(path))
    problems = exc.value.problems
    assert len(problems) == 1
    p = problems[0]
    assert p.file == str(path) and p.line == 2 and p.key == key and expected in p.message, str(p)


def test_unknown_book_name_is_an_input_error(stack_file) -> None:
    stack = stack_file(
        "availability_zone: us-east-2a\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}\n"
    )
    res = run_cli("plan", str(stack), "--price-book", "rates-1999")
    assert res.code == 2
    expected = "one of: current, capacity-blocks-2024"
    assert f"rates-1999: --price-book: no such file; expected a YAML price book or {expected}" in res.err


def test_a_users_ebs_price_wins_over_the_built_in_one(tmp_path: Path) -> None:
    path = write_book(
        tmp_path,
        "ebs:\n  - {region: us-east-2, volume_type: gp3, usd_per_gb_month: 0.07, "
        f'source: "{SOURCE}", as_of: 2026-08-01}}\n',
    )
    book = load_price_book(str(path))
    assert book.ebs_price("us-east-2", "gp3").usd == 0.07 and book.ebs_price("us-east-2", "gp3").source == SOURCE
    assert book.ebs_price("us-east-1", "gp3").usd == 0.08  # the built-in entry stays underneath


def test_ebs_charges_are_priced_by_their_own_keys_and_win_over_the_built_in_ones(tmp_path: Path) -> None:
    """Storage per GB-month, IOPS per IOPS-month (io2 by tier), throughput per MiBps-month: one entry each."""
    path = write_book(
        tmp_path,
        "ebs:\n"
        f'  - {{region: us-east-2, volume_type: io2, charge: iops-tier-2, usd_per_iops_month: 0.04, source: "{SOURCE}", as_of: 2026-08-01}}\n'
        f'  - {{region: us-east-2, volume_type: gp3, charge: throughput, usd_per_mibps_month: 0.03, source: "{SOURCE}", as_of: 2026-08-01}}\n'
        f'  - {{region: us-east-2, volume_type: st1, usd_per_gb_month: 0.04, source: "{SOURCE}", as_of: 2026-08-01}}\n',
    )
    book = load_price_book(str(path))
    tier2, tput, st1 = (
        book.ebs_price("us-east-2", "io2", "iops-tier-2"),
        book.ebs_price("us-east-2", "gp3", "throughput"),
        book.ebs_price("us-east-2", "st1"),
    )
    assert (tier2.usd, tier2.unit, tier2.source) == (0.04, "IOPS-month", SOURCE)
    assert (tput.usd, tput.unit) == (0.03, "MiBps-month") and (st1.usd, st1.unit) == (0.04, "GB-month")
    assert book.ebs_price("us-east-2", "io2", "iops").usd == 0.065  # tier 1 stays the built-in one
    assert ("ebs us-east-2 io2 iops-tier-2", tier2) in book.entries()


def test_a_second_price_for_one_ebs_charge_is_refused(tmp_path: Path) -> None:
    path = write_book(
        tmp_path,
        "ebs:\n"
        "  - {region: us-east-2, volume_type: io2, charge: iops, usd_per_iops_month: 0.06, source: x, as_of: 2026}\n"
        "  - {region: us-east-2, volume_type: io2, charge: iops, usd_per_iops_month: 0.07, source: x, as_of: 2026}\n"
        "  - {region: us-east-2, volume_type: io2, usd_per_gb_month: 0.12, source: x, as_of: 2026}\n",
    )
    with pytest.raises(InputError) as exc:
        load_price_book(str(path))
    (p,) = exc.value.problems
    assert p.key == "ebs[1]" and "a second price for EBS io2 iops in us-east-2 (the first is at line 2)" in p.message
