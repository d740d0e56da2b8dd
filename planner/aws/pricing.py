"""Current on-demand prices from the AWS Price List Query API (`pricing:GetProducts`).

EC2: one product per instance type and region once filtered on Linux, shared tenancy, no
pre-installed software, capacity status Used and market option OnDemand; the filter on the
market option matters because Capacity Block rows share the other attributes and are
priced 0.00. FSx for Lustre: storage rows (USD per GB-month) matched on deployment option,
storage type and per-unit throughput. EBS: the gp3 storage row of a region (AmazonEC2,
productFamily Storage, volumeApiName gp3; USD per GB-month). A row priced 0, or two rows that disagree, is never
taken as the price: the caller then keeps the price book's figure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from planner.aws.errors import cut
from planner.core.model.cluster import DeploymentType

PRICING_REGION = "us-east-1"  # the Query API's endpoint; it serves every region's prices
EC2 = "AmazonEC2"
FSX = "AmazonFSx"
HDD_THROUGHPUTS = (12, 40)  # PERSISTENT_1 on HDD; every other Lustre throughput is SSD


@dataclass(frozen=True)
class Offer:
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


def ebs_filters(region: str, volume_type: str = "gp3") -> list[dict[str, str]]:
    return [term("regionCode", region), term("productFamily", "Storage"), term("volumeApiName", volume_type)]


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
    """USD per GB-month of EBS storage of `volume_type` (the root volumes' gp3) in `region`.

    The gp3 price includes its baseline of 3,000 IOPS and 125 MiB/s; IOPS and throughput above
    it are other products (productFamily "System Operation", "Provisioned Throughput"), not asked.
    """
    rows = [o for o in offers(products(client, EC2, ebs_filters(region, volume_type))) if o.unit == "GB-Mo"]
    return single(rows, f"EBS {volume_type} storage in {region}")
