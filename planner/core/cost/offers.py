"""What AWS does not sell (`planner/data/prices/not-sold.yaml`): "not sold" is not "price unknown".

A price book can only miss a price that exists somewhere; a type that AWS does not sell on
demand, or a Capacity Block in a region where blocks are not sold, has none to find. The
estimate labels such a line item "not sold", the `purchase-not-sold` rule points at the node
group, and the catalogue-walk test accepts an entry here in place of a price.
"""

from __future__ import annotations

from functools import lru_cache

from msgspec import Struct

from planner.core.catalogue import shipped_data as _data
from planner.core.model.cluster import Purchase

FILE = "prices/not-sold.yaml"


class NotSold(Struct, frozen=True):
    """`instance_type` bought as `purchase` is not sold in `regions` (None: any region)."""

    instance_type: str
    purchase: Purchase
    regions: tuple[str, ...] | None
    reason: str
    source: str
    as_of: str
    note: str | None = None

    def covers(self, instance_type: str, region: str, purchase: Purchase) -> bool:
        return (
            self.instance_type == instance_type
            and self.purchase == purchase
            and (self.regions is None or region in self.regions)
        )


@lru_cache(maxsize=1)
def entries() -> tuple[NotSold, ...]:
    """Every entry of the shipped file, in file order."""
    data, _ = _data.raw(FILE)
    out = []
    for e in data["not_sold"]:
        regions = e["regions"]
        out.append(
            NotSold(
                e["instance_type"],
                e["purchase"],
                None if regions == "all" else tuple(regions),
                " ".join(str(e["reason"]).split()),
                e["source"],
                str(e["as_of"]),
                e.get("note"),
            )
        )
    return tuple(out)


def not_sold(instance_type: str, region: str, purchase: Purchase) -> NotSold | None:
    """The entry saying AWS does not sell this combination, or None (the first in file order)."""
    return next(
        (e for e in _by_offer().get((instance_type, purchase), ()) if e.covers(instance_type, region, purchase)), None
    )


@lru_cache(maxsize=1)
def _by_offer() -> dict[tuple[str, str], tuple[NotSold, ...]]:
    """The entries by (instance type, purchase), in file order: every line item asks, so not a scan of all."""
    out: dict[tuple[str, str], list[NotSold]] = {}
    for e in entries():
        out.setdefault((e.instance_type, e.purchase), []).append(e)
    return {k: tuple(v) for k, v in out.items()}
