"""`planner prices refresh`: a dated price book regenerated from AWS, ready for `--price-book`.

On-demand EC2, FSx for Lustre storage and EBS (the storage of every volume type planner prices, and the
provisioned IOPS and throughput gp3, io1 and io2 bill) come from the AWS Price List Query API
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
from collections.abc import Callable, Iterable
from typing import Any

from msgspec import Struct, field

from planner.aws.errors import DENIED, REJECTED_CREDENTIALS, AwsCallError, explain
from planner.aws.pricing import (
    EC2,
    FSX,
    PRICING_REGION,
    NoPrice,
    ebs_charge,
    ebs_entry,
    ebs_label,
    ec2_on_demand,
    lustre_filters,
    lustre_storage,
    products,
)
from planner.core.cost.book import EBS_CHARGES
from planner.core.model.cluster import DeploymentType

CB_ACTION = "ec2:DescribeCapacityBlockOfferings"
CB_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeCapacityBlockOfferings.html"
CB_PROBE_HOURS = 24  # the shortest bookable block: the price per instance-hour is the same for every length
LUSTRE_TIERS: tuple[tuple[DeploymentType, int | None], ...] = (
    ("SCRATCH_1", None),
    ("SCRATCH_2", None),
    ("PERSISTENT_1", 50),
    ("PERSISTENT_1", 100),
    ("PERSISTENT_1", 200),
    ("PERSISTENT_1", 12),
    ("PERSISTENT_1", 40),
    ("PERSISTENT_2", 125),
    ("PERSISTENT_2", 250),
    ("PERSISTENT_2", 500),
    ("PERSISTENT_2", 1000),
)
# Errors after which asking again in the same run is pointless (every later call fails alike).
STOP_CODES = DENIED
EVERYTHING_STOPS = REJECTED_CREDENTIALS | {"NoCredentials", "ProfileNotFound", "EndpointConnectionError"}


class Refresh(Struct):
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
        return {
            "name": f"aws-{today}",
            "description": f"Prices fetched from the AWS Price List Query API and EC2 Capacity Block offerings on {today}",
            "instances": self.instances,
            "lustre": self.lustre,
            "ebs": self.ebs,
        }


class Item(Struct, frozen=True):
    """One price to fetch: what it is (for messages), which API, and how."""

    label: str
    api: str  # "pricing" or "ec2:<region>"
    fetch: Callable[[Callable[[str, str], Any]], dict[str, Any] | None]
    kind: str  # "instances", "lustre" or "ebs"


def capacity_block_entry(client: Any, instance_type: str, region: str, today: str) -> dict[str, Any] | None:
    """The Capacity Block price per instance-hour from the cheapest 24 h offering, or None without one."""
    from planner.core.catalogue.instance_types import load

    types = load().ultraservers_of(instance_type)  # the catalogue's UltraServer types; the smallest is asked for
    ultra = types[0].name if types else None
    per_ultraserver = types[0].members if types else 1
    ask: dict[str, Any] = {"CapacityDurationHours": CB_PROBE_HOURS}
    ask.update(
        {"UltraserverType": ultra, "UltraserverCount": 1}
        if ultra
        else {"InstanceType": instance_type, "InstanceCount": 1}
    )
    offers = client.describe_capacity_block_offerings(**ask).get("CapacityBlockOfferings", [])
    import math

    from planner.core.cost.block_offerings import MAX_BLOCK_COUNT, MAX_BLOCK_HOURS, MAX_FEE, aws_name

    def whole(value: Any, high: int) -> int:
        return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= high else 0

    rates = []
    for o in offers:  # every figure checked (finite fee, counts, names): an answer is untrusted input
        if o.get("CurrencyCode", "USD") != "USD":
            continue
        hours = (
            whole(o.get("CapacityBlockDurationHours"), MAX_BLOCK_HOURS)
            + whole(o.get("CapacityBlockDurationMinutes"), 59) / 60
        )
        count = o.get("UltraserverCount") if ultra else o.get("InstanceCount")
        members = whole(count, MAX_BLOCK_COUNT) * (per_ultraserver if ultra else 1)
        oid, zone = aws_name(o.get("CapacityBlockOfferingId")), aws_name(o.get("AvailabilityZone"))
        try:
            fee = float(o["UpfrontFee"])
        except (KeyError, TypeError, ValueError):
            continue
        if oid and zone and hours > 0 and members > 0 and math.isfinite(fee) and 0 < fee <= MAX_FEE:
            rates.append((round(fee / hours / members, 4), oid, o))
    if not rates:
        return None
    usd, offering, o = min(rates, key=lambda r: (r[0], r[1]))
    unit = f"{o.get('UltraserverCount')} UltraServer(s) ({ultra})" if ultra else f"{o.get('InstanceCount')} instance(s)"
    return {
        "instance_type": instance_type,
        "region": region,
        "purchase": "capacity-block",
        "usd_per_hour": usd,
        "source": CB_DOC,
        "as_of": today,
        "note": f"upfront fee {str(o['UpfrontFee'])[:24]} USD for {unit} over {o.get('CapacityBlockDurationHours')} h, "
        f"offering {offering} in {aws_name(o.get('AvailabilityZone'))}, fetched {today}",
    }


def items(
    cat: Any, regions: Iterable[str] | None, today: str, capacity_blocks: bool = True, types: Iterable[Any] = ()
) -> list[Item]:
    """What to fetch for the catalogue's training types (or `types`: any types AWS lists) and their regions
    (or only `regions`), in a stable order."""
    from planner.core.cost.offers import not_sold

    wanted = set(regions) if regions else None
    out: list[Item] = []
    all_regions: set[str] = set()
    for t in list(types) or list(cat.instance_types.values()):
        for region in t.regions:
            if wanted is not None and region not in wanted:
                continue
            all_regions.add(region)
            if not cat.is_member(t.name) and not_sold(t.name, region, "on-demand") is None:

                def od(client: Callable[[str, str], Any], n: str = t.name, r: str = region) -> dict[str, Any]:
                    offer = ec2_on_demand(client("pricing", PRICING_REGION), n, r)
                    return {
                        "instance_type": n,
                        "region": r,
                        "purchase": "on-demand",
                        "usd_per_hour": offer.usd,
                        "source": offer.source(EC2),
                        "as_of": today,
                    }

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

            def fs(
                client: Callable[[str, str], Any], r: str = region, d: DeploymentType = dtype, u: int | None = tput
            ) -> dict[str, Any]:
                pc = client("pricing", PRICING_REGION)
                offer = lustre_storage(pc, r, d, u, lustre_rows(pc, r))
                entry: dict[str, Any] = {
                    "region": r,
                    "deployment_type": d,
                    "usd_per_gb_month": offer.usd,
                    "source": offer.source(FSX),
                    "as_of": today,
                }
                if u is not None:
                    entry["per_unit_storage_throughput"] = u
                return entry

            out.append(Item(f"lustre {region} {dtype} {tput or ''}".rstrip(), "pricing", fs, "lustre"))

        for charge, what in EBS_CHARGES.items():
            for vtype in what.volume_types:

                def ebs(
                    client: Callable[[str, str], Any], r: str = region, v: str = vtype, c: str = charge
                ) -> dict[str, Any]:
                    return ebs_entry(ebs_charge(client("pricing", PRICING_REGION), r, v, c), r, v, c, today)

                out.append(Item(ebs_label(region, vtype, charge), "pricing", ebs, "ebs"))
    return out


def run(
    todo: list[Item], client: Callable[[str, str], Any], progress: Callable[[int, int, str], None] | None = None
) -> Refresh:
    """Fetch every item. After access denied, an API is not asked again; after no credentials
    or no network, nothing is."""
    from botocore.exceptions import BotoCoreError, ClientError
    from botocore.parsers import ResponseParserError

    from planner.aws import deadline
    from planner.aws.errors import NotAwsAnswer

    out = Refresh()
    for i, item in enumerate(todo, 1):
        if progress:
            progress(i, len(todo), item.label)
        family = item.api.split(":", 1)[0]  # "pricing" or "ec2"
        why_not = out.stopped.get("*") or out.stopped.get(family) or out.stopped.get(item.api)
        if why_not:
            out.not_asked += 1
            continue
        action, region = (
            ("pricing:GetProducts", PRICING_REGION) if family == "pricing" else (CB_ACTION, item.api.split(":", 1)[1])
        )
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
            status = _http_status(exc)
            if status is not None and status >= 500:  # an error page, after botocore's retries: this endpoint is down
                down = (
                    f"{action}: {_endpoint(client, family, region)} answered HTTP {status} "
                    f"({err.message}); run again later"
                )
                out.missing.append(f"{item.label}: {down}")
                out.stopped[item.api] = down
                continue
            out.missing.append(f"{item.label}: {err.message}")
            if err.code in EVERYTHING_STOPS:
                out.stopped["*"] = err.message
            elif err.code in STOP_CODES:
                out.stopped[family] = err.message
            continue
        except (NotAwsAnswer, ResponseParserError, ValueError, TypeError, KeyError, AttributeError) as exc:
            # an HTML page with HTTP 200, or JSON that is not the API's: never a price, never a traceback
            odd = f"{action}: {_endpoint(client, family, region)} sent an answer that is not the API's ({_what(exc)})"
            out.missing.append(f"{item.label}: {odd}")
            out.stopped[item.api] = odd
            continue
        if entry is None:
            out.missing.append(f"{item.label}: no Capacity Block offering of {CB_PROBE_HOURS} h to read a price from")
            continue
        {"instances": out.instances, "lustre": out.lustre, "ebs": out.ebs}[item.kind].append(entry)
    return out


def _http_status(exc: BaseException) -> int | None:
    """The HTTP status of a botocore ClientError's answer, else None."""
    response = getattr(exc, "response", None)
    status = (
        ((response or {}).get("ResponseMetadata") or {}).get("HTTPStatusCode") if isinstance(response, dict) else None
    )
    return status if isinstance(status, int) else None


def _endpoint(client: Callable[[str, str], Any], family: str, region: str) -> str:
    """The URL the calls of `family` in `region` went to, for a message; the service's name if unknown."""
    try:
        url = client(family, region).meta.endpoint_url
    except Exception:  # noqa: BLE001 - only for the message
        url = None
    return f"the endpoint {url}" if isinstance(url, str) and url else f"the {family} endpoint in {region}"


def _what(exc: BaseException) -> str:
    """Why an answer is not the API's, short: the page or JSON itself is never quoted whole."""
    from planner.aws.errors import NotAwsAnswer
    from planner.core.text.safe import one_line

    if isinstance(exc, NotAwsAnswer):
        return "no AWS request id: a captive portal, proxy or firewall page?"
    if type(exc).__name__ == "ResponseParserError":
        return "not the API's XML or JSON: a proxy or firewall page?"
    text = " ".join(one_line(exc).split())
    return f"{type(exc).__name__}: {text[:80]}" if text else type(exc).__name__


HEADER = "# Generated by `planner prices refresh`; every entry keeps its source and the date it was fetched.\n"


def checked(data: dict[str, Any], origin: str) -> tuple[dict[str, Any], list[str]]:
    """`data` without the entries `--price-book` would refuse (an infinite or out-of-range
    price, a control character in a SKU or source, ...), and one line per entry left out.

    Each entry is read alone, as written to YAML and read back, by the parser `--price-book`
    uses (`planner.core.cost.book.parse_data`): the answer is about the file, not about Python values.
    """
    from planner.core.cost.book import parse_data
    from planner.core.reading.problems import InputError

    kept: dict[str, Any] = {k: v for k, v in data.items() if not isinstance(v, list)}
    dropped: list[str] = []
    for kind in ("instances", "lustre", "ebs"):
        kept[kind] = []
        for entry in data.get(kind) or []:
            try:
                parse_data(_round_trip({"name": data.get("name", origin), kind: [entry]}), origin)
            except InputError as exc:
                dropped.append(f"{_label(kind, entry)}: {exc.problems[0].key}: {exc.problems[0].message}")
                continue
            kept[kind].append(entry)
    return kept, dropped


def _label(kind: str, entry: Any) -> str:
    keys = {
        "instances": ("instance_type", "purchase", "region"),
        "lustre": ("deployment_type", "region"),
        "ebs": ("volume_type", "charge", "region"),
    }[kind]
    return " ".join([kind] + [str(entry.get(k)) for k in keys if isinstance(entry, dict) and k in entry])


def render(data: dict[str, Any]) -> str:
    """The YAML text of a price book, as `write_book` writes it."""
    import yaml

    return HEADER + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=200)


def _round_trip(data: dict[str, Any]) -> Any:
    from planner.core.reading import yaml_lines as yamlload

    return yamlload.load(render(data), "<refresh>")[0]


def write_book(path: str, data: dict[str, Any]) -> None:
    """Write `data` as YAML, if `--price-book` reads the text back whole; else InputError and nothing written.

    Written through a temporary file beside `path` and a rename (`planner.core.reading.bounded_files.write_atomic`):
    a failed run leaves the old book; the new file keeps the old one's mode (a new one gets the umask's).
    """
    from planner.core.cost.book import parse_data
    from planner.core.reading import yaml_lines as yamlload
    from planner.core.reading.bounded_files import write_atomic

    text = render(data)
    loaded, lines = yamlload.load(text, path)
    parse_data(loaded, path, lines)  # the whole book, as the file will read
    write_atomic(path, text, "--output")


def today_utc() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()
