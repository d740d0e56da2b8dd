"""DescribeCapacityBlockOfferings in many regions at once: each region's offerings, or one line why not.

Regions are asked in parallel by a few daemon threads (a region's calls one after another),
and the command waits at most `--aws-timeout` for them: a region still silent then is an
answer too ("no answer within N s"), as are AccessDenied, a region the account has not
opted in to, throttling after botocore's retries, and an answer that is not AWS's API. A
fault never becomes an empty list that would read as "no capacity". The threads are
daemons, so a hung endpoint cannot keep the process alive once the answer is printed.
Clients come from `planner.aws.account.Clients` (boto3's credential chain, its timeouts and
retries, and the standard endpoint settings such as `AWS_ENDPOINT_URL_EC2`). A region whose
offerings include a Local Zone is also asked for that zone's group (DescribeAvailabilityZones
`GroupName`); without that answer the search names the group as AWS usually names them.
"""

from __future__ import annotations

import datetime as dt
import queue
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from planner.aws.errors import DENIED, AwsCallError, NotAwsAnswer, cut, explain, require_aws_answer
from planner.core.cost.block_offerings import (
    ACTION,
    EXTENSION_ACTION,
    BadOffering,
    ExtensionSearch,
    Offering,
    Query,
    RegionAnswer,
    aws_name,
    offering_from_api,
)

WORKERS = (
    8  # regions asked at once: enough for every Capacity Block region in two rounds, few enough for EC2's rate limits
)
MAX_PAGES = 20  # pages per request; AWS answers one search in one page, so more is a loop
ClientFor = Callable[[str], Any]  # region -> botocore EC2 client
Progress = Callable[[int, int, str], None]  # (answered, total, region just answered)


def open_ec2(profile: str | None = None) -> ClientFor:
    """EC2 clients on boto3's credential chain (or `profile`); SetupError when there are no credentials."""
    from planner.aws.preflight_run import open_clients

    clients = open_clients(profile)
    return lambda region: clients.client("ec2", region)


def open_resource_groups(profile: str | None = None) -> ClientFor:
    """Resource Groups clients, for a node group that launches into a resource group of Capacity Blocks."""
    from planner.aws.preflight_run import open_clients

    clients = open_clients(profile)
    return lambda region: clients.client("resource-groups", region)


GROUP_ACTION = "resource-groups:ListGroupResources"
RESERVATION_ARN = re.compile(r"^arn:aws[a-z-]*:ec2:[a-z0-9-]+:[0-9]{12}:capacity-reservation/(cr-[0-9a-f]{8,17})$")


def group_reservations(client: Any, group_arn: str) -> list[str]:
    """The capacity reservation ids a resource group holds (ListGroupResources, page by page), in its order."""
    ids: list[str] = []
    params: dict[str, Any] = {
        "Group": group_arn,
        "Filters": [{"Name": "resource-type", "Values": ["AWS::EC2::CapacityReservation"]}],
    }
    while True:
        page = client.list_group_resources(**params)
        for r in page.get("Resources") or []:
            m = RESERVATION_ARN.fullmatch(str((r.get("Identifier") or {}).get("ResourceArn") or ""))
            if m is None:
                raise BadOffering("a group resource whose ARN is not a capacity reservation's")
            ids.append(m.group(1))
        token = page.get("NextToken")
        if not token:
            return list(dict.fromkeys(ids))
        params["NextToken"] = token


def _explain(exc: BaseException, action: str, region: str) -> AwsCallError:
    """One line for a failed call, in the words of this command (regions, not IAM for preflight)."""
    err = explain(exc, action, region)
    if err.code == "OptInRequired":
        return AwsCallError(
            action,
            f"{region} is not enabled for this account (OptInRequired); enable it "
            "(Account settings, AWS Regions) or leave it out of --regions",
            err.code,
        )
    if err.code in DENIED:
        return AwsCallError(
            action,
            f"access denied to {action} in {region} ({err.code}); grant it to the role or "
            "user, or leave the region out of --regions",
            err.code,
        )
    return err


def _ask(client: Any, action: str, method: str, params: dict[str, Any], results: str) -> list[dict[str, Any]]:
    """Every record of one Describe call, page by page (NextToken)."""
    out: list[dict[str, Any]] = []
    token: str | None = None
    for _ in range(MAX_PAGES):
        page = getattr(client, method)(**params, **({"NextToken": token} if token else {}))
        out += page.get(results) or []
        token = page.get("NextToken")
        if not token:
            return out
    raise BadOffering(f"{action} kept answering with more pages after {MAX_PAGES}")


def ask_region(
    client: Any, region: str, asked: Sequence[Query], earliest: dt.datetime | None, latest_end: dt.datetime | None
) -> RegionAnswer:
    """One region's offerings for every query, or the first failure as its one line."""
    from botocore.exceptions import BotoCoreError, ClientError
    from botocore.parsers import ResponseParserError

    client.meta.events.register("after-call", require_aws_answer, unique_id="planner-require-aws-answer")
    found: list[Offering] = []
    try:
        for q in asked:
            for d in _ask(
                client,
                ACTION,
                "describe_capacity_block_offerings",
                q.params(earliest, latest_end),
                "CapacityBlockOfferings",
            ):
                found.append(offering_from_api(region, d, q.duration_hours))
    except BadOffering as exc:
        return RegionAnswer(
            region, tuple(asked), error=f"{ACTION} in {region}: the answer is not usable ({cut(exc)})", code="NotAws"
        )
    except (ClientError, BotoCoreError, ResponseParserError, NotAwsAnswer) as exc:
        err = _explain(exc, ACTION, region)
        return RegionAnswer(region, tuple(asked), error=err.message, code=err.code)
    unique = {o.offering_id: o for o in found}  # both durations may return the same offering
    return RegionAnswer(region, tuple(asked), with_zone_groups(client, tuple(unique[k] for k in sorted(unique))))


def with_zone_groups(client: Any, offerings: tuple[Offering, ...]) -> tuple[Offering, ...]:
    """The Local Zone offerings with their zone group as the account's DescribeAvailabilityZones names it
    (`GroupName`); unanswered (denied, unreachable, not AWS's answer), they keep none, and the search says
    the group it names is AWS's usual naming."""
    from botocore.exceptions import BotoCoreError, ClientError
    from botocore.parsers import ResponseParserError
    from msgspec.structs import replace

    local = sorted({o.availability_zone for o in offerings if o.local_zone})
    if not local:
        return offerings
    try:
        zones = client.describe_availability_zones(AllAvailabilityZones=True, ZoneNames=local).get("AvailabilityZones")
    except (ClientError, BotoCoreError, ResponseParserError, NotAwsAnswer):
        return offerings
    groups = {z.get("ZoneName"): aws_name(z.get("GroupName")) for z in zones or () if isinstance(z, dict)}
    return tuple(
        replace(o, zone_group=groups[o.availability_zone]) if o.local_zone and groups.get(o.availability_zone) else o
        for o in offerings
    )


def search(
    regions: Iterable[str],
    asked: Sequence[Query],
    client_for: ClientFor,
    timeout: float,
    earliest: dt.datetime | None = None,
    latest_end: dt.datetime | None = None,
    progress: Progress | None = None,
    workers: int = WORKERS,
) -> list[RegionAnswer]:
    """Every region's answer to `asked`, in the order given; a region silent after `timeout` seconds says so."""
    regions = list(dict.fromkeys(regions))
    return search_jobs(
        [(r, tuple(asked)) for r in regions], client_for, timeout, earliest, latest_end, progress, workers
    )


def search_jobs(
    jobs: Sequence[tuple[str, tuple[Query, ...]]],
    client_for: ClientFor,
    timeout: float,
    earliest: dt.datetime | None = None,
    latest_end: dt.datetime | None = None,
    progress: Progress | None = None,
    workers: int = WORKERS,
) -> list[RegionAnswer]:
    """The answer to each (region, queries) job, in order, asked in parallel; `timeout` bounds them all."""
    clients: dict[str, Any] = {}
    answers: dict[int, RegionAnswer] = {}
    for i, (r, asked) in enumerate(
        jobs
    ):  # made here, on one thread: a boto3 session is not thread-safe, its clients are
        if r in clients:
            continue
        try:
            clients[r] = client_for(r)
        except Exception as exc:  # noqa: BLE001 - an unknown endpoint, a bad config: that region's line
            answers[i] = RegionAnswer(r, asked, error=_explain(exc, ACTION, r).message, code=type(exc).__name__)
    todo: queue.Queue[int] = queue.Queue()
    for i, (r, _) in enumerate(jobs):
        if i not in answers and r in clients:
            todo.put(i)
        elif i not in answers:
            answers[i] = RegionAnswer(r, jobs[i][1], error=f"no EC2 client for {r}", code="NoEndpoint")
    done: queue.Queue[tuple[int, RegionAnswer]] = queue.Queue()

    def work() -> None:
        while True:
            try:
                i = todo.get_nowait()
            except queue.Empty:
                return
            r, asked = jobs[i]
            try:
                done.put((i, ask_region(clients[r], r, asked, earliest, latest_end)))
            except Exception as exc:  # noqa: BLE001 - whatever a client raises is that region's line, never a traceback
                done.put(
                    (
                        i,
                        RegionAnswer(
                            r,
                            asked,
                            error=f"{ACTION} in {r} failed: {type(exc).__name__}: {cut(exc)}",
                            code=type(exc).__name__,
                        ),
                    )
                )

    waiting = todo.qsize()
    for _ in range(min(workers, waiting)):
        threading.Thread(target=work, name="planner-capacity", daemon=True).start()
    end = time.monotonic() + timeout
    while waiting:
        try:
            i, a = done.get(timeout=max(0.0, end - time.monotonic()))
        except queue.Empty:
            break
        answers[i] = a
        waiting -= 1
        if progress is not None:
            progress(len(answers), len(jobs), a.region)
    for i, (r, asked) in enumerate(jobs):
        answers.setdefault(
            i,
            RegionAnswer(
                r,
                asked,
                error=f"no answer from {ACTION} in {r} within {timeout:g} s (--aws-timeout); a slow endpoint or proxy?",
                code="Timeout",
            ),
        )
    return [answers[i] for i in range(len(jobs))]


def extend(client: Any, search: ExtensionSearch, timeout: float, groups: Any = None) -> ExtensionSearch:
    """Fill `search` with the blocks' reservations and, for each too short for the run, its extension offerings.

    A node group that names a resource group gets its reservation ids from `groups` (a
    Resource Groups client) first. Asked on a daemon thread like `search`, so `timeout`
    bounds the whole lookup.
    """
    done: queue.Queue[ExtensionSearch] = queue.Queue()

    def work() -> None:
        try:
            done.put(_extend(client, search, groups))
        except Exception as exc:  # noqa: BLE001 - whatever a client raises is the answer's line, never a traceback
            search.error = f"{EXTENSION_ACTION} in {search.region} failed: {type(exc).__name__}: {cut(exc)}"
            done.put(search)

    threading.Thread(target=work, name="planner-capacity-extension", daemon=True).start()
    try:
        return done.get(timeout=timeout)
    except queue.Empty:
        search.error = (
            f"no answer about {', '.join(search.reservation_ids) or search.resource_group_arn} in "
            f"{search.region} within {timeout:g} s "
            "(--aws-timeout); a slow endpoint or proxy?"
        )
        return search


NOT_FOUND = ("InvalidCapacityReservationId.NotFound", "InvalidCapacityReservationId.Malformed")


def _extend(client: Any, search: ExtensionSearch, groups: Any = None) -> ExtensionSearch:
    from botocore.exceptions import BotoCoreError, ClientError
    from botocore.parsers import ResponseParserError

    from planner.core.cost.block_offerings import NoBlock, extension_from_api, extension_hours, reservation_from_api

    client.meta.events.register("after-call", require_aws_answer, unique_id="planner-require-aws-answer")
    action, region, ids = "ec2:DescribeCapacityReservations", search.region, list(search.reservation_ids)
    try:
        if search.resource_group_arn is not None and groups is not None:
            action = GROUP_ACTION
            groups.meta.events.register("after-call", require_aws_answer, unique_id="planner-require-aws-answer")
            ids = group_reservations(groups, search.resource_group_arn)
            if not ids:
                search.error = f"the resource group {search.resource_group_arn} holds no capacity reservation"
                return search
            search.use(ids)
            action = "ec2:DescribeCapacityReservations"
        # one call for every block the group names (it takes a list); EC2 refuses the whole call when one is unknown
        found = client.describe_capacity_reservations(CapacityReservationIds=ids).get("CapacityReservations") or []
        by_id = {r.reservation_id: r for r in (reservation_from_api(region, d) for d in found)}
        for b in search.booked:
            b.reservation = by_id.get(b.reservation_id)
            if b.reservation is None:
                b.error = f"{b.reservation_id} is not a capacity reservation of this account in {region}"
        if not search.complete or search.covered:
            return search
        action = EXTENSION_ACTION
        for b in search.booked:
            if search.covers(b):
                continue
            b.asked = extension_hours(search.missing_hours(b))
            for hours in b.asked:
                for d in _ask(
                    client,
                    action,
                    "describe_capacity_block_extension_offerings",
                    {"CapacityBlockExtensionDurationHours": hours, "CapacityReservationId": b.reservation_id},
                    "CapacityBlockExtensionOfferings",
                ):
                    b.extensions.append(extension_from_api(d))
    except BadOffering as exc:
        search.error = f"{action} in {region}: the answer is not usable ({cut(exc)})"
    except NoBlock as exc:
        search.error = str(exc)
    except ClientError as exc:
        err = exc.response.get("Error") or {}
        if err.get("Code") in NOT_FOUND:
            which = "" if len(ids) == 1 else " (one of the node group's " + ", ".join(ids) + ")"
            search.error = (
                f"{ids[0] if len(ids) == 1 else 'a reservation'}{which} is not a capacity reservation of "
                f"this account in {region} ({err.get('Code')}: {err.get('Message') or 'no message'})"
            )
        else:
            search.error = _explain(exc, action, region).message
    except (BotoCoreError, ResponseParserError, NotAwsAnswer) as exc:
        search.error = _explain(exc, action, region).message
    return search


def offerings_for(
    wanted: list[tuple[Any, str]], timeout: float, profile: str | None = None
) -> list[tuple[list[Any], str | None]]:
    """For each (Need, region): its options, cheapest first, or the one line why there are none.

    Shared by `compare --capacity` and `plan --live-prices`: one parallel search, bounded
    by `timeout`, and no credentials is a line for every row, not a failure of the command.
    """
    from planner.aws import deadline
    from planner.aws.preflight_run import SetupError
    from planner.core.cost.block_offerings import NoBlock, combine, queries

    out: list[tuple[list[Any], str | None] | None] = [None] * len(wanted)
    jobs, where = [], []
    for i, (need, region) in enumerate(wanted):
        try:
            jobs.append((region, queries(need)))
            where.append(i)
        except NoBlock as exc:
            out[i] = ([], str(exc))
    if jobs:
        try:
            with deadline.limit(timeout):
                client_for = open_ec2(profile)
        except (SetupError, deadline.DeadlineExceeded) as exc:
            return [x if x is not None else ([], str(exc)) for x in out]
        for i, a in zip(where, search_jobs(jobs, client_for, timeout)):
            options, _ = combine(wanted[i][0], a.offerings)
            out[i] = (options, a.error)
    return [x if x is not None else ([], None) for x in out]


def need_for(instance_type: str, instances: int, hours: float, basis: str, ultraserver: str | None = None) -> Any:
    """A `Need` for a row priced elsewhere (compare, plan): whole UltraServers for member types."""
    from planner.core.catalogue import instance_types as catalogue
    from planner.core.cost.block_offerings import Need, ultraserver_type

    return Need(instance_type, instances, hours, basis, ultraserver_type(catalogue.load(), instance_type, ultraserver))


def warn_block_prices(stacks: list[Any], book: Any, timeout: float, say: Any) -> None:
    """`plan --live-prices`: say where the book's Capacity Block price is far from the offerings AWS shows now.

    One line per Capacity Block node group with hours: the deviation when it is beyond
    `planner.core.cost.block_offerings.DEVIATION`, the fault when AWS could not be asked; nothing when
    the book is close. The estimate keeps the book's price (an offering is not bought yet).
    """
    from planner.core.catalogue import instance_types as catalogue
    from planner.core.cost.block_offerings import DEVIATION, NoBlock, deviation
    from planner.core.cost.estimate import workload_hours
    from planner.core.text.numbers import usd_rate

    cat = catalogue.load()
    rows = []
    seen: set[tuple[Any, ...]] = set()  # diff passes both sides: the same group is asked for, and told, once
    for s in stacks:
        hours = s.cluster.schedule.hours if s.cluster.schedule is not None else workload_hours(s.cluster, cat)
        for g in s.cluster.node_groups:
            price = book.instance(g.instance_type, s.region, "capacity-block")
            if g.purchase != "capacity-block" or hours is None or price is None:
                continue
            key = (g.instance_type, g.ultraserver_type, g.count, hours, s.region, price.usd)
            if key in seen:
                continue
            seen.add(key)
            try:
                rows.append((s, g, price, need_for(g.instance_type, g.count, hours, "plan", g.ultraserver_type)))
            except NoBlock:
                continue
    if not rows:
        return
    found = offerings_for([(need, s.region) for s, _, _, need in rows], timeout)
    faults: set[str] = set()
    for (s, g, price, _), (options, why) in zip(rows, found):
        where = f"{s.file}: node group '{g.name}'"
        if why and not options:
            if why not in faults:
                faults.add(why)
                say(f"warning: Capacity Block offerings not checked ({why}); the price book's figures stay")
            continue
        off = deviation(price.usd, options)
        if off is None:
            continue
        frac, o = off
        say(
            f"warning: {where}: the cheapest Capacity Block offering AWS shows now for {g.instance_type} in {s.region} "
            f"({usd_rate(o.usd_per_instance_hour)}, {o.first.offering_id} in {o.first.availability_zone}) is "
            f"{abs(frac):.0%} {'above' if frac > 0 else 'below'} the price book's ({usd_rate(price.usd)}, as of "
            f"{price.as_of}; more than {DEVIATION:.0%} apart); the estimate keeps the book's price; "
            f"planner capacity {s.file} lists the offerings"
        )
