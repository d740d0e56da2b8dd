"""`planner prices refresh`: regenerate a price book from AWS (Price List Query API, Capacity Block offerings)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from planner.core.reading.problems import InputError, Problem

if TYPE_CHECKING:
    from planner.aws.account import Clients

ARGS = "<command line>"
REFRESH_TIMEOUT_SECONDS = 600.0  # several hundred Price List calls; other commands default to 60 s


def _timeout_arg(text: str) -> float:
    from planner.commands import aws_timeout_arg

    return aws_timeout_arg(text)


def register(sub: argparse._SubParsersAction[Any]) -> None:
    from planner.commands import region_arg

    p = sub.add_parser("prices", help="price books: regenerate one from AWS (prices refresh)")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    r = actions.add_parser(
        "refresh", help="write a dated price book fetched from the AWS Price List and Capacity Block offerings"
    )
    r.add_argument(
        "--output",
        "-o",
        required=True,
        metavar="FILE",
        help="the YAML price book to write (use it with --price-book FILE)",
    )
    r.add_argument(
        "--region",
        action="append",
        default=[],
        type=region_arg,
        metavar="REGION",
        help="only this region (repeatable; default: every region the catalogue lists)",
    )
    r.add_argument(
        "--type",
        action="append",
        default=[],
        metavar="TYPE",
        help="only this instance type, any type AWS lists (`planner catalog --all`; repeatable; default: the "
        "curated training types)",
    )
    r.add_argument(
        "--no-capacity-blocks",
        action="store_true",
        help="skip DescribeCapacityBlockOfferings (on-demand and FSx for Lustre only)",
    )
    r.add_argument("--profile", default=None, help="AWS profile (default: the usual credential chain)")
    r.add_argument(
        "--aws-timeout",
        type=_timeout_arg,
        default=REFRESH_TIMEOUT_SECONDS,
        metavar="SECONDS",
        help=f"stop asking AWS after SECONDS in all (default {REFRESH_TIMEOUT_SECONDS:g}: a refresh asks "
        "hundreds of prices); what was fetched by then is written as a partial book",
    )
    r.set_defaults(run=run)


def run(args: argparse.Namespace, client: Callable[[str, str], Any] | None = None) -> int:  # client: for tests
    """Fetch, then write atomically; exit 0 when everything was priced, 1 when the book is partial or empty."""
    import os

    from planner.commands import requires
    from planner.core.catalogue import instance_types as catalogue

    if client is None:
        requires("aws", "planner prices refresh")
    from planner.aws import refresh

    directory = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(directory):
        raise InputError([Problem(ARGS, None, "--output", f"no such directory: {directory}")])
    cat = catalogue.load()
    from planner.core.reading.fields import closest

    for name in getattr(args, "type", []):
        if not cat.lists(name):
            raise InputError(
                [Problem(ARGS, None, "--type", f"unknown instance type '{name}'{closest(name, cat.all_names())}")]
            )
    types = [cat.spec(name) for name in dict.fromkeys(getattr(args, "type", []))]
    unknown = sorted(set(args.region) - {r for t in types or cat.instance_types.values() for r in t.regions})
    if unknown:
        raise InputError([Problem(ARGS, None, "--region", f"no catalogue instance type is offered in '{unknown[0]}'")])
    today = refresh.today_utc()
    todo = refresh.items(cat, args.region or None, today, capacity_blocks=not args.no_capacity_blocks, types=types)
    from planner.aws import deadline

    with deadline.limit(getattr(args, "aws_timeout", REFRESH_TIMEOUT_SECONDS)):  # every call, credentials included
        result = refresh.run(todo, client or _clients(args.profile), _progress if sys.stderr.isatty() else None)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    from planner.cli import error_line as say  # one line each, whatever AWS answered

    for why in sorted(set(result.stopped.values())):
        say(f"stopped asking: {why}")
    for line in result.missing:
        say(f"not priced: {line}")
    if result.not_asked:
        say(f"not asked: {result.not_asked} more items, after the stop above")
    # what AWS answered is data too: an entry --price-book would refuse is left out, said, and counted
    book, dropped = refresh.checked(result.book(today), args.output)
    for line in dropped:
        say(f"left out, --price-book would refuse it: {line}")
    kept = {kind: len(book[kind]) for kind in ("instances", "lustre", "ebs")}
    if not sum(kept.values()):
        say(
            f"no price fetched; {args.output} not written"
            if not result.count
            else f"no usable price fetched ({len(dropped)} left out); {args.output} not written"
        )
        return 1
    try:
        refresh.write_book(args.output, book)
    except InputError as exc:  # cannot happen after `checked`, but a book planner refuses is never written
        for p in exc.problems:
            say(f"not written, --price-book would refuse it: {p}")
        return 1
    done = (
        f"wrote {args.output}: {kept['instances']} instance, {kept['lustre']} FSx for Lustre and "
        f"{kept['ebs']} EBS prices, as of {today}"
    )
    unpriced = len(result.missing) + result.not_asked + len(dropped)
    if unpriced:
        done += f"; partial: {unpriced} of {len(todo)} items not priced (listed above)"
    from planner.core.reading.bounded_files import emit

    emit(done + "\n")
    return 1 if unpriced else 0


def _progress(i: int, n: int, label: str) -> None:
    sys.stderr.write(f"\r\033[K[{i}/{n}] {label}")
    sys.stderr.flush()


def _clients(profile: str | None) -> Callable[[str, str], Any]:
    """A (service, region) -> client factory; credentials are looked up on first use."""
    made: dict[str, Clients] = {}

    def get(service: str, region: str) -> Any:  # a botocore client
        from botocore.exceptions import BotoCoreError

        from planner.aws.account import Clients
        from planner.aws.errors import NO_CREDENTIALS, AwsCallError, explain

        if "clients" not in made:
            try:
                clients = Clients(profile)
            except BotoCoreError as exc:
                raise explain(exc, "sts:GetCallerIdentity") from None
            if not clients.has_credentials():
                raise AwsCallError("pricing:GetProducts", NO_CREDENTIALS, "NoCredentials")
            made["clients"] = clients
        return made["clients"].client(service, region)

    return get
