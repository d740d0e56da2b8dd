"""`--live-prices`: current on-demand prices from the AWS Price List, layered over the price book.

Prices are fetched for what the command needs (the on-demand node groups, EBS volumes and
file systems of the stacks, or every catalogue type of `compare --region`), cached with the time they
were fetched in `$XDG_CACHE_HOME/planner/live-prices.json` (default `~/.cache/planner/`)
for `TTL_HOURS`, and turned into entries of the price-book file shape, each with its
source and the date it was fetched, which `PriceBook.overlay` layers over the selected
book. When the API cannot be reached (no credentials, network, access denied, throttling)
the book is used as it is, with one warning line: a price is never invented.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from typing import Any

from msgspec import Struct

from planner.aws.errors import AwsCallError, cut, explain
from planner.aws.pricing import (
    EC2,
    FSX,
    PRICING_REGION,
    NoPrice,
    Offer,
    ebs_charge,
    ebs_entry,
    ebs_label,
    ec2_on_demand,
    lustre_storage,
)
from planner.core.model.cluster import DeploymentType

TTL_HOURS = 24
CACHE_MAX_BYTES = 16 * 1024 * 1024  # thousands of entries; a bigger file is not one planner wrote
CACHE_VERSION = 1
ORIGIN = "AWS Price List (live)"

InstanceNeed = tuple[str, str]  # instance_type, region
LustreNeed = tuple[str, DeploymentType, int | None]  # region, deployment_type, per-unit throughput (None for SCRATCH)
EbsNeed = tuple[str, str, str]  # region, volume_type, charge (`planner.core.cost.book.EBS_CHARGES`)


class PriceNeeds(Struct, frozen=True):
    instances: frozenset[InstanceNeed] = frozenset()
    lustre: frozenset[LustreNeed] = frozenset()
    ebs: frozenset[EbsNeed] = frozenset()


def needs_for(stacks: Iterable[Any] = (), region: str | None = None, types: Iterable[str] = ()) -> PriceNeeds:
    """On-demand, Lustre and EBS prices the stacks use (the price keys of their cost components, `planner.core.cost.items`);
    with `region` (compare), every catalogue type (or `types`) there."""
    from planner.core.catalogue import instance_types as _catalogue
    from planner.core.cost.items import keys

    instances: set[InstanceNeed] = set()
    lustre: set[LustreNeed] = set()
    ebs: set[EbsNeed] = set()
    stacks = list(stacks)
    for key in keys(stacks, _catalogue.load()) if stacks else ():
        if key.kind == "instance":
            instance_type, where, purchase = key.parts
            if purchase == "on-demand":
                instances.add((instance_type, where))
        elif key.kind == "lustre":
            where, deployment_type, tput = key.parts
            lustre.add((where, deployment_type, None if deployment_type.startswith("SCRATCH") else tput))
        elif key.kind == "ebs":
            ebs.add(key.parts)
    if region:
        from planner.core.catalogue import instance_types as catalogue

        wanted = list(types) or list(catalogue.load().instance_types)
        instances |= {(t, region) for t in wanted}
    return PriceNeeds(frozenset(instances), frozenset(lustre), frozenset(ebs))


def cache_path() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "planner", "live-prices.json")


class PriceCache:
    """Fetched prices (or "the Price List has none") by key, with the UTC time they were fetched."""

    def __init__(self, path: str, now: dt.datetime):
        self.path, self.now = path, now
        self.entries: dict[str, dict[str, Any]] = {}
        self.problems: list[str] = []  # what was wrong with the file, for one warning line each
        self.dirty = False
        from planner.core.reading.bounded_files import read_regular
        from planner.core.reading.problems import InputError

        if not os.path.lexists(path):
            return  # no cache yet
        try:
            data = json.loads(read_regular(path, CACHE_MAX_BYTES, "the price cache").decode("utf-8"))
        except InputError as exc:
            self._discard(f"unreadable ({exc.problems[0].message})")
            return
        except ValueError:
            self._discard("unreadable (not JSON)")
            return
        if (
            not isinstance(data, dict)
            or data.get("version") != CACHE_VERSION
            or not isinstance(data.get("entries"), dict)
        ):
            self._discard("not a cache this version of planner wrote")
            return
        self.entries = data["entries"]

    def _discard(self, why: str) -> None:
        self.problems.append(f"discarded the price cache {self.path}: {why}; prices are fetched again")
        self.dirty = True  # rewrite it with what this run fetches

    def discard(self, key: str, why: str) -> None:
        """Drop one corrupt entry (it is fetched again) and say so, naming the cache file."""
        self.entries.pop(key, None)
        self.problems.append(f"discarded the entry '{key}' of the price cache {self.path}: {why}; fetched again")
        self.dirty = True

    def get(self, key: str) -> dict[str, Any] | None:
        """A fresh entry {"fetched_at", "entry" | "missing"}, or None when absent or older than the TTL."""
        hit = self.entries.get(key)
        if not isinstance(hit, dict):
            return None
        try:
            age = self.now - dt.datetime.fromisoformat(hit["fetched_at"])
        except (KeyError, TypeError, ValueError):  # missing, malformed, or without a time zone: fetch again
            return None
        return hit if dt.timedelta(0) <= age <= dt.timedelta(hours=TTL_HOURS) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        self.entries[key] = {"fetched_at": self.now.isoformat(timespec="seconds"), **value}
        self.dirty = True

    def save(self) -> str | None:
        """Write the cache atomically; the reason when it cannot be written (the prices are still used)."""
        if not self.dirty:
            return None
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(self.path), prefix=".live-prices.")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"version": CACHE_VERSION, "entries": dict(sorted(self.entries.items()))}, fh, indent=1)
            os.replace(tmp, self.path)
        except OSError as exc:
            return f"cannot write the price cache {self.path}: {exc.strerror or exc}"
        return None


def _instance_entry(offer: Offer, instance_type: str, region: str, as_of: str) -> dict[str, Any]:
    return {
        "instance_type": instance_type,
        "region": region,
        "purchase": "on-demand",
        "usd_per_hour": offer.usd,
        "source": offer.source(EC2),
        "as_of": as_of,
    }


def _lustre_entry(offer: Offer, need: LustreNeed, as_of: str) -> dict[str, Any]:
    region, dtype, tput = need
    entry: dict[str, Any] = {
        "region": region,
        "deployment_type": dtype,
        "usd_per_gb_month": offer.usd,
        "source": offer.source(FSX),
        "as_of": as_of,
    }
    if tput is not None:
        entry["per_unit_storage_throughput"] = tput
    return entry


class LivePrices(Struct):
    """The outcome of one fetch: entries in the price-book file shape, and what to tell the user."""

    data: dict[str, list[dict[str, Any]]]
    fetched: int = 0
    cached: int = 0
    missing: tuple[str, ...] = ()
    failure: str | None = None  # why the API could not be used (then the book is used as it is)
    cache_problem: str | None = None
    cache_warnings: tuple[str, ...] = ()  # corrupt cache entries discarded

    def book_data(self) -> dict[str, Any]:
        """The price-book file shape `PriceBook.overlay` takes: a book named "live"."""
        return {"name": "live", **{k: v for k, v in self.data.items() if v}}

    def summary(self) -> str:
        parts = [f"{self.fetched} fetched", f"{self.cached} from the cache ({TTL_HOURS} h)"]
        if self.missing:
            parts.append(f"none in the Price List for {', '.join(self.missing)} (the price book's entry stays)")
        return "live prices: " + "; ".join(parts)


def fetch(needs: PriceNeeds, client: Callable[[], Any], cache: PriceCache) -> LivePrices:
    """Prices for `needs`, from the cache when fresh, else from the API through `client()` (the pricing client)."""
    from botocore.exceptions import BotoCoreError, ClientError
    from botocore.parsers import ResponseParserError

    from planner.aws import deadline
    from planner.aws.errors import NotAwsAnswer

    as_of = cache.now.date().isoformat()
    out = LivePrices({"instances": [], "lustre": [], "ebs": []})
    missing: list[str] = []
    jobs: list[tuple[str, str, Callable[[Any], Offer], Callable[[Offer, str], dict[str, Any]]]] = []
    # each job's functions take the loop's values as defaults (a closure would see the last ones)
    for itype, region in sorted(needs.instances):

        def ask_ec2(c: Any, t: str = itype, r: str = region) -> Offer:
            return ec2_on_demand(c, t, r)

        def ec2_entry(o: Offer, d: str, t: str = itype, r: str = region) -> dict[str, Any]:
            return _instance_entry(o, t, r, d)

        jobs.append((f"ec2 {itype} {region}", "instances", ask_ec2, ec2_entry))
    for need in sorted(needs.lustre, key=lambda n: (n[0], n[1], n[2] or 0)):
        region, dtype, tput = need

        def ask_lustre(c: Any, r: str = region, d: DeploymentType = dtype, t: int | None = tput) -> Offer:
            return lustre_storage(c, r, d, t)

        def lustre_entry(o: Offer, d: str, n: LustreNeed = need) -> dict[str, Any]:
            return _lustre_entry(o, n, d)

        jobs.append((f"lustre {region} {dtype} {tput or ''}".rstrip(), "lustre", ask_lustre, lustre_entry))
    for ebs_need in sorted(needs.ebs):
        region, vtype, charge = ebs_need

        def ask_ebs(c: Any, r: str = region, v: str = vtype, k: str = charge) -> Offer:
            return ebs_charge(c, r, v, k)

        def entry_of(o: Offer, d: str, n: EbsNeed = ebs_need) -> dict[str, Any]:
            return ebs_entry(o, *n, d)

        jobs.append((ebs_label(region, vtype, charge), "ebs", ask_ebs, entry_of))
    for key, kind, ask, entry in jobs:
        hit = cache.get(key)
        why = _corrupt(hit, kind)
        if why:
            cache.discard(key, why)
            hit = None
        if hit is not None:
            out.cached += 1
            if hit.get("entry"):
                out.data[kind].append(hit["entry"])
            else:
                missing.append(key.split(" ", 1)[1])
            continue
        if out.failure:
            continue
        try:
            with deadline.calling():
                offer = ask(client())
        except NoPrice as why:
            cache.put(key, {"missing": str(why)})
            missing.append(key.split(" ", 1)[1])
            continue
        except AwsCallError as err:
            out.failure = err.message
            continue
        except (BotoCoreError, ClientError, ResponseParserError, NotAwsAnswer, deadline.DeadlineExceeded) as exc:
            out.failure = explain(exc, "pricing:GetProducts", PRICING_REGION).message
            continue
        e = entry(offer, as_of)
        cache.put(key, {"entry": e})
        out.data[kind].append(e)
        out.fetched += 1
    out.missing = tuple(missing)
    out.cache_warnings = tuple(cache.problems)
    out.cache_problem = cache.save()
    return out


def _corrupt(hit: dict[str, Any] | None, kind: str) -> str | None:
    """Why a fresh cache entry cannot be used (it would make every run exit 2 until it expires), or None.

    An entry is checked as a price book entry is (`PriceBook.overlay`), so a hand-edited
    or truncated cache is refetched, never trusted and never fatal.
    """
    if hit is None or "entry" not in hit:
        if hit is not None and not isinstance(hit.get("missing", ""), str):
            return "'missing' is not text"
        return None
    entry = hit["entry"]
    if not isinstance(entry, dict):
        return "the entry is not a mapping"
    from planner.core.cost.book import PriceBook
    from planner.core.reading.problems import InputError

    try:
        PriceBook("cache").overlay({"name": "live", kind: [entry]}, ORIGIN)
    except InputError as exc:
        first = exc.problems[0]
        return f"{first.key + ': ' if first.key else ''}{first.message}"
    return None


def pricing_client(profile: str | None = None) -> Callable[[], Any]:
    """The pricing client, made on first use (so a fully cached run needs no credentials)."""
    made: list[Any] = []

    def get() -> Any:
        if not made:
            from botocore.exceptions import BotoCoreError

            from planner.aws.account import Clients
            from planner.aws.deadline import DeadlineExceeded
            from planner.aws.errors import NO_CREDENTIALS

            try:
                clients = Clients(profile)
                if not clients.has_credentials():
                    raise AwsCallError("pricing:GetProducts", NO_CREDENTIALS, "NoCredentials")
            except (BotoCoreError, DeadlineExceeded) as exc:
                raise explain(exc, "pricing:GetProducts", PRICING_REGION) from None
            except (ValueError, OSError) as exc:  # a credential_process printing non-JSON, or one that cannot run
                raise AwsCallError(
                    "pricing:GetProducts",
                    f"cannot load AWS credentials ({type(exc).__name__}: {cut(exc)})",
                    "Credentials",
                ) from None
            made.append(clients.client("pricing", PRICING_REGION))
        return made[0]

    return get


def live_book(
    book: Any,
    needs: PriceNeeds,
    client: Callable[[], Any] | None = None,
    now: dt.datetime | None = None,
    warn: Callable[[str], None] | None = None,
) -> Any:
    """`book` with current on-demand prices layered over it (`PriceBook.overlay`), or `book` with a warning."""
    from planner.core.reading.problems import error_line

    say = warn or error_line
    cache = PriceCache(cache_path(), now or dt.datetime.now(dt.UTC))
    result = fetch(needs, client or pricing_client(), cache)
    if result.failure:
        say(
            f"warning: live prices unavailable ({result.failure}); using the price book '{book.name}' "
            f"for {'the prices not cached' if result.cached else 'every price'}"
        )
    for line in result.cache_warnings:
        say(f"warning: {line}")
    if result.cache_problem:
        say(f"warning: {result.cache_problem}")
    if not result.failure or result.fetched or result.cached:
        say(result.summary())
    if not any(result.data.values()):
        return book
    return book.overlay(result.book_data(), ORIGIN)
