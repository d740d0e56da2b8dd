"""Current on-demand prices from the AWS Price List Query API (`pricing:GetProducts`).

EC2: one product per instance type and region once filtered on Linux, shared tenancy, no
pre-installed software, capacity status Used and market option OnDemand; the filter on the
market option matters because Capacity Block rows share the other attributes and are
priced 0.00. FSx for Lustre: storage rows (USD per GB-month) matched on deployment option,
storage type and per-unit throughput. EBS (`ebs_charge`): a volume type's storage row of a region
(AmazonEC2, productFamily Storage, volumeApiName; USD per GB-month), its provisioned IOPS rows
(productFamily System Operation, by usage type: gp3, io1's `piops`, io2's three tiers; USD per
IOPS-month) and gp3's provisioned throughput (productFamily Provisioned Throughput; USD per GiB/s-month,
divided by 1,024 for the book's MiB/s-month). A row priced 0, or two rows that disagree, is never
taken as the price: the caller then keeps the price book's figure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from msgspec import Struct

from planner.aws.errors import cut
from planner.core.model.cluster import DeploymentType

PRICING_REGION = "us-east-1"  # the Query API's endpoint; it serves every region's prices
EC2 = "AmazonEC2"
FSX = "AmazonFSx"
HDD_THROUGHPUTS = (12, 40)  # PERSISTENT_1 on HDD; every other Lustre throughput is SSD


class Offer(Struct, frozen=True):
    """One on-demand price dimension of a Price List product."""

    sku: str
    usd: float
    unit: str
    attributes: dict[str, str]
    published: str  # the product's publicationDate, YYYY-MM-DD

    def source(self, service: str) -> str:
        return f"AWS Price List Query API ({service}, sku {self.sku}, published {self.published})"


class NoPrice(Exception):
    """The Price List has no single usable price for the request; the message says why."""


def term(field: str, value: str) -> dict[str, str]:
    return {"Type": "TERM_MATCH", "Field": field, "Value": value}


def ec2_filters(instance_type: str, region: str) -> list[dict[str, str]]:
    return [
        term("instanceType", instance_type),
        term("regionCode", region),
        term("operatingSystem", "Linux"),
        term("tenancy", "Shared"),
        term("preInstalledSw", "NA"),
        term("capacitystatus", "Used"),
        term("marketoption", "OnDemand"),
    ]


def lustre_filters(region: str) -> list[dict[str, str]]:
    return [term("regionCode", region), term("fileSystemType", "Lustre"), term("productFamily", "Storage")]


def ebs_filters(region: str, volume_type: str = "gp3", family: str = "Storage") -> list[dict[str, str]]:
    return [term("regionCode", region), term("productFamily", family), term("volumeApiName", volume_type)]


def offers(price_list: Iterable[str]) -> list[Offer]:
    """The on-demand price dimensions of GetProducts' PriceList (JSON strings, one product each)."""
    out = []
    for text in price_list:
        try:
            item = json.loads(text)
            product = item.get("product") or {}
            attrs = {k: str(v) for k, v in (product.get("attributes") or {}).items()}
            published = str(item.get("publicationDate", ""))[:10]
            for t in ((item.get("terms") or {}).get("OnDemand") or {}).values():
                for dim in (t.get("priceDimensions") or {}).values():
                    usd = (dim.get("pricePerUnit") or {}).get("USD")
                    if usd is not None:
                        sku = str(product.get("sku", ""))  # checked where the book is written
                        out.append(Offer(sku, _price(usd, sku), str(dim.get("unit", "")), attrs, published))
        except (ValueError, TypeError, AttributeError) as exc:
            raise NoPrice(f"an unreadable PriceList entry ({type(exc).__name__}: {cut(exc)})") from None
    return out


MAX_USD_PER_UNIT = 1_000_000.0  # no AWS unit (an instance-hour, a GB-month) costs more: above is no price


def _price(value: Any, sku: str) -> float:
    """A price AWS's Price List sends (a decimal string): finite, not negative, at most MAX_USD_PER_UNIT;
    NoPrice (a line saying what was sent, cut short) for anything else: an answer is untrusted input."""
    from planner.core.text.safe import excerpt

    try:
        usd = float(value) if isinstance(value, str | int | float) and not isinstance(value, bool) else math.nan
    except ValueError:
        usd = math.nan
    if not math.isfinite(usd) or not 0 <= usd <= MAX_USD_PER_UNIT:
        raise NoPrice(f"an unreadable PriceList entry: {excerpt(value)} USD for sku {excerpt(sku)} is not a price")
    return usd


def products(client: Any, service_code: str, filters: list[dict[str, str]]) -> list[str]:
    pages = client.get_paginator("get_products").paginate(
        ServiceCode=service_code, Filters=filters, FormatVersion="aws_v1"
    )
    return [p for page in pages for p in page.get("PriceList", [])]


def single(candidates: list[Offer], what: str) -> Offer:
    """The one price among `candidates`; NoPrice when there is none or they disagree."""
    priced = [o for o in candidates if o.usd > 0]
    if not priced:
        raise NoPrice(
            f"no priced on-demand row for {what} in the Price List" + (" (only rows priced 0)" if candidates else "")
        )
    if len({o.usd for o in priced}) > 1:
        listed = cut(", ".join(f"{o.usd:g} (sku {o.sku})" for o in sorted(priced, key=lambda o: (o.usd, o.sku))))
        raise NoPrice(f"the Price List has several prices for {what}: {listed}")
    return min(priced, key=lambda o: o.sku)


def ec2_on_demand(client: Any, instance_type: str, region: str) -> Offer:
    """USD per instance-hour of an on-demand Linux instance."""
    rows = [
        o
        for o in offers(products(client, EC2, ec2_filters(instance_type, region)))
        if o.unit == "Hrs" and o.attributes.get("marketoption", "OnDemand") == "OnDemand"
    ]
    return single(rows, f"on-demand {instance_type} in {region}")


def _number(text: str | None) -> float | None:
    try:
        x = float(text) if text is not None else None
    except ValueError:
        return None
    return x if x is not None and math.isfinite(x) else None


def lustre_storage(
    client: Any,
    region: str,
    deployment_type: DeploymentType,
    throughput: int | None,
    price_list: list[str] | None = None,
) -> Offer:
    """USD per GB-month of FSx for Lustre storage for one deployment type and per-unit throughput.

    `price_list`: the region's Lustre PriceList, when already fetched (one query serves every tier).
    """
    option = "scratch" if deployment_type.startswith("SCRATCH") else "persistent"
    storage = "HDD" if option == "persistent" and throughput in HDD_THROUGHPUTS else "SSD"
    rows = []
    listed = price_list if price_list is not None else products(client, FSX, lustre_filters(region))
    for o in offers(listed):
        a = o.attributes
        if o.unit != "GB-Mo" or "backup" in a.get("usagetype", "").lower():
            continue
        if not a.get("deploymentOption", "").lower().startswith(option) or a.get("storageType") != storage:
            continue
        if option == "persistent" and _number(a.get("throughputCapacity")) != float(throughput or 0):
            continue
        rows.append(o)
    tput = f" {throughput} MB/s/TiB" if option == "persistent" else ""
    return single(rows, f"FSx for Lustre {deployment_type}{tput} {storage} in {region}")


def ebs_storage(client: Any, region: str, volume_type: str = "gp3") -> Offer:
    """USD per GB-month of EBS storage of `volume_type` in `region` (gp3's includes its baseline of 3,000
    IOPS and 125 MiB/s; what is provisioned above it is `ebs_charge`'s)."""
    return ebs_charge(client, region, volume_type, "storage")


# The Price List rows of what an EBS volume bills besides storage (charge -> productFamily, the end of the
# usage type, whose region prefix varies ("USE2-"), and the unit): the usage types AWS bills them under.
EBS_ROWS: dict[tuple[str, str], tuple[str, str, str]] = {
    ("gp3", "iops"): ("System Operation", "EBS:VolumeP-IOPS.gp3", "IOPS-Mo"),
    ("io1", "iops"): ("System Operation", "EBS:VolumeP-IOPS.piops", "IOPS-Mo"),
    ("io2", "iops"): ("System Operation", "EBS:VolumeP-IOPS.io2", "IOPS-Mo"),
    ("io2", "iops-tier-2"): ("System Operation", "EBS:VolumeP-IOPS.io2.tier2", "IOPS-Mo"),
    ("io2", "iops-tier-3"): ("System Operation", "EBS:VolumeP-IOPS.io2.tier3", "IOPS-Mo"),
    ("gp3", "throughput"): ("Provisioned Throughput", "EBS:VolumeP-Throughput.gp3", "GiBps-mo"),
}
MIB_PER_GIB = 1024


def ebs_charge(client: Any, region: str, volume_type: str, charge: str) -> Offer:
    """USD per unit of one EBS charge (`planner.core.cost.book.EBS_CHARGES`) of `volume_type` in `region`:
    GB-month of storage, IOPS-month, or MiB/s-month (the Price List's GiB/s-month divided by 1,024)."""
    from msgspec.structs import replace

    if charge == "storage":
        family, usage, unit = "Storage", "", "GB-Mo"
    elif (volume_type, charge) in EBS_ROWS:
        family, usage, unit = EBS_ROWS[(volume_type, charge)]
    else:
        raise NoPrice(f"EBS {volume_type} has no {charge} charge")
    rows = [
        o
        for o in offers(products(client, EC2, ebs_filters(region, volume_type, family)))
        if o.unit.lower() == unit.lower() and o.attributes.get("usagetype", "").endswith(usage)
    ]
    what = f"EBS {volume_type} storage" if charge == "storage" else f"EBS {volume_type} {charge}"
    offer = single(rows, f"{what} in {region}")
    if charge == "throughput":
        return replace(offer, usd=offer.usd / MIB_PER_GIB, unit="MiBps-Mo")
    return offer


def ebs_entry(offer: Offer, region: str, volume_type: str, charge: str, as_of: str) -> dict[str, Any]:
    """A price-book `ebs` entry of `offer` (what `prices refresh` writes and `--live-prices` overlays): the
    charge named unless it is the storage, the price under the charge's key (`EBS_CHARGES`)."""
    from planner.core.cost.book import EBS_CHARGES, STORAGE

    entry: dict[str, Any] = {"region": region, "volume_type": volume_type}
    if charge != STORAGE:
        entry["charge"] = charge
    entry[EBS_CHARGES[charge].price_key] = offer.usd
    entry.update(source=offer.source(EC2), as_of=as_of)
    return entry


def ebs_label(region: str, volume_type: str, charge: str) -> str:
    """How a refresh or a live fetch names one EBS price: `ebs us-east-2 io2 iops-tier-2` (`ebs us-east-2 gp3`)."""
    return f"ebs {region} {volume_type}" + ("" if charge == "storage" else f" {charge}")
