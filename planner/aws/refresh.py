"""`planner prices refresh`: a dated price book regenerated from AWS, ready for `--price-book`.

On-demand EC2, FSx for Lustre storage and EBS gp3 storage (the root volumes) come from the AWS Price List Query API
(`pricing:GetProducts`, through `planner.aws.pricing`); Capacity Blocks from
`ec2:DescribeCapacityBlockOfferings` in each region, where the account may call it: the
offering's upfront fee divided by its hours and instances is the price per instance-hour
(AWS quotes Capacity Blocks that way on the pricing page). Trn2 UltraServers are offered by
UltraServer (`UltraserverType` u-trn2x64, `UltraserverCount`): their fee is divided by the
UltraServer's four instances as well.

Every entry carries its source (API, SKU or offering id) and the date it was fetched. A
refresh is partial rather than wrong: an item the API does not answer (no price, throttled,
access denied) is listed in the summary and left out of the file, and the file is written
to a temporary name and renamed, so a failed run never leaves a half-written book.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from planner.aws.errors import DENIED, REJECTED_CREDENTIALS, AwsCallError, explain
from planner.aws.pricing import (EC2, FSX, PRICING_REGION, NoPrice, ebs_storage, ec2_on_demand, lustre_filters,
                                 lustre_storage, products)

CB_ACTION = "ec2:DescribeCapacityBlockOfferings"
CB_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeCapacityBlockOfferings.html"
CB_PROBE_HOURS = 24  # the shortest bookable block: the price per instance-hour is the same for every length
LUSTRE_TIERS: tuple[tuple[str, int | None], ...] = (
    ("SCRATCH_1", None), ("SCRATCH_2", None), ("PERSISTENT_1", 50), ("PERSISTENT_1", 100), ("PERSISTENT_1", 200),
    ("PERSISTENT_1", 12), ("PERSISTENT_1", 40), ("PERSISTENT_2", 125), ("PERSISTENT_2", 250), ("PERSISTENT_2", 500),
    ("PERSISTENT_2", 1000))
# Errors after which asking again in the same run is pointless (every later call fails alike).
STOP_CODES = DENIED
EVERYTHING_STOPS = REJECTED_CREDENTIALS | {"NoCredentials", "ProfileNotFound", "EndpointConnectionError"}


@dataclass
class Refresh:
    """What a refresh got: entries in the price-book file shape, and what it could not get, per item."""

    instances: list[dict[str, Any]] = field(default_factory=list)
    lustre: list[dict[str, Any]] = field(default_factory=list)
    ebs: list[dict[str, Any]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # "<item>: <why>", one line each
    not_asked: int = 0  # items skipped after the API stopped answering (see `stopped`)
    stopped: dict[str, str] = field(default_factory=dict)  # API -> why it was not asked again

    @property
    def count(self) -> int:
        return len(self.instances) + len(self.lustre) + len(self.ebs)

    def book(self, today: str) -> dict[str, Any]:
        return {"name": f"aws-{today}",
                "description": f"Prices fetched from the AWS Price List Query API and EC2 Capacity Block offerings on {today}",
                "instances": self.instances, "lustre": self.lustre, "ebs": self.ebs}


@dataclass(frozen=True)
class Item:
    """One price to fetch: what it is (for messages), which API, and how."""

    label: str
    api: str  # "pricing" or "ec2:<region>"
    fetch: Callable[[Callable[[str, str], Any]], dict[str, Any] | None]
    kind: str  # "instances", "lustre" or "ebs"


def capacity_block_entry(client: Any, instance_type: str, region: str, today: str) -> dict[str, Any] | None:
    """The Capacity Block price per instance-hour from the cheapest 24 h offering, or None without one."""
    from planner.catalogue import load

    types = load().ultraservers_of(instance_type)  # the catalogue's UltraServer types; the smallest is asked for
    ultra = types[0].name if types else None
    per_ultraserver = types[0].members if types else 1
    ask: dict[str, Any] = {"CapacityDurationHours": CB_PROBE_HOURS}
    ask.update({"UltraserverType": ultra, "UltraserverCount": 1} if ultra else {"InstanceType": instance_type, "InstanceCount": 1})
    offers = client.describe_capacity_block_offerings(**ask).get("CapacityBlockOfferings", [])
    rates = []
    for o in offers:
        if o.get("CurrencyCode", "USD") != "USD":
            continue
        hours = o.get("CapacityBlockDurationHours") or 0
        hours += (o.get("CapacityBlockDurationMinutes") or 0) / 60
        members = (o.get("UltraserverCount") or 0) * per_ultraserver if ultra else (o.get("InstanceCount") or 0)
        try:
            fee = float(o["UpfrontFee"])
        except (KeyError, TypeError, ValueError):
            continue
        if hours > 0 and members > 0 and fee > 0:
            rates.append((round(fee / hours / members, 4), str(o.get("CapacityBlockOfferingId", "")), o))
    if not rates:
        return None
    usd, offering, o = min(rates)
    unit = f"{o.get('UltraserverCount')} UltraServer(s) ({ultra})" if ultra else f"{o.get('InstanceCount')} instance(s)"
    return {"instance_type": instance_type, "region": region, "purchase": "capacity-block", "usd_per_hour": usd,
            "source": CB_DOC, "as_of": today,
            "note": f"upfront fee {o['UpfrontFee']} USD for {unit} over {o.get('CapacityBlockDurationHours')} h, "
                    f"offering {offering} in {o.get('AvailabilityZone')}, fetched {today}"}


def items(cat: Any, regions: Iterable[str] | None, today: str, capacity_blocks: bool = True) -> list[Item]:
    """What to fetch for the catalogue's types and regions (or only `regions`), in a stable order."""
    from planner.cost.offers import not_sold

    wanted = set(regions) if regions else None
    out: list[Item] = []
    all_regions: set[str] = set()
    for t in cat.instance_types.values():
        for region in t.regions:
            if wanted is not None and region not in wanted:
                continue
            all_regions.add(region)
            if not cat.is_member(t.name) and not_sold(t.name, region, "on-demand") is None:
                def od(client: Callable[[str, str], Any], n: str = t.name, r: str = region) -> dict[str, Any]:
                    offer = ec2_on_demand(client("pricing", PRICING_REGION), n, r)
                    return {"instance_type": n, "region": r, "purchase": "on-demand", "usd_per_hour": offer.usd,
                            "source": offer.source(EC2), "as_of": today}
                out.append(Item(f"{t.name} on-demand {region}", "pricing", od, "instances"))
            if capacity_blocks and t.capacity_block and not_sold(t.name, region, "capacity-block") is None:
                def cb(client: Callable[[str, str], Any], n: str = t.name, r: str = region) -> dict[str, Any] | None:
                    return capacity_block_entry(client("ec2", r), n, r, today)
                out.append(Item(f"{t.name} capacity-block {region}", f"ec2:{region}", cb, "instances"))
    fetched: dict[str, list[str]] = {}  # region -> its Lustre PriceList: one query serves every tier

    def lustre_rows(client: Any, region: str) -> list[str]:
        if region not in fetched:
            fetched[region] = products(client, FSX, lustre_filters(region))
        return fetched[region]

    for region in sorted(all_regions):
        for dtype, tput in LUSTRE_TIERS:
            def fs(client: Callable[[str, str], Any], r: str = region, d: str = dtype, u: int | None = tput) -> dict[str, Any]:
                pc = client("pricing", PRICING_REGION)
                offer = lustre_storage(pc, r, d, u, lustre_rows(pc, r))
                entry: dict[str, Any] = {"region": r, "deployment_type": d, "usd_per_gb_month": offer.usd,
                                         "source": offer.source(FSX), "as_of": today}
                if u is not None:
                    entry["per_unit_storage_throughput"] = u
                return entry
            out.append(Item(f"lustre {region} {dtype} {tput or ''}".rstrip(), "pricing", fs, "lustre"))

        def ebs(client: Callable[[str, str], Any], r: str = region) -> dict[str, Any]:
            offer = ebs_storage(client("pricing", PRICING_REGION), r)
            return {"region": r, "volume_type": "gp3", "usd_per_gb_month": offer.usd, "source": offer.source(EC2),
                    "as_of": today}
        out.append(Item(f"ebs {region} gp3", "pricing", ebs, "ebs"))
    return out


def run(todo: list[Item], client: Callable[[str, str], Any], progress: Callable[[int, int, str], None] | None = None) -> Refresh:
    """Fetch every item. After access denied, an API is not asked again; after no credentials
    or no network, nothing is."""
    from botocore.exceptions import BotoCoreError, ClientError

    from planner.aws import deadline

    out = Refresh()
    for i, item in enumerate(todo, 1):
        if progress:
            progress(i, len(todo), item.label)
        family = item.api.split(":", 1)[0]  # "pricing" or "ec2"
        why_not = out.stopped.get("*") or out.stopped.get(family)
        if why_not:
            out.not_asked += 1
            continue
        action, region = (("pricing:GetProducts", PRICING_REGION) if family == "pricing"
                          else (CB_ACTION, item.api.split(":", 1)[1]))
        try:
            with deadline.calling():
                entry = item.fetch(client)
        except deadline.DeadlineExceeded as late:  # the command's --aws-timeout: what is fetched is kept
            out.missing.append(f"{item.label}: {late}")
            out.stopped["*"] = str(late)
            continue
        except NoPrice as why:
            out.missing.append(f"{item.label}: {why}")
            continue
        except (AwsCallError, BotoCoreError, ClientError) as exc:
            err = exc if isinstance(exc, AwsCallError) else explain(exc, action, region)
            out.missing.append(f"{item.label}: {err.message}")
            if err.code in EVERYTHING_STOPS:
                out.stopped["*"] = err.message
            elif err.code in STOP_CODES:
                out.stopped[family] = err.message
            continue
        if entry is None:
            out.missing.append(f"{item.label}: no Capacity Block offering of {CB_PROBE_HOURS} h to read a price from")
            continue
        {"instances": out.instances, "lustre": out.lustre, "ebs": out.ebs}[item.kind].append(entry)
    return out


def write_book(path: str, data: dict[str, Any]) -> None:
    """Write `data` as YAML to a temporary file beside `path`, then rename it over `path`."""
    import yaml

    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".prices-", suffix=".yaml")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("# Generated by `planner prices refresh`; every entry keeps its source and the date it was fetched.\n")
            yaml.safe_dump(data, fh, sort_keys=False, allow_unicode=True, width=200)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def today_utc() -> str:
    return dt.datetime.now(dt.timezone.utc).date().isoformat()
