"""What `planner rules --format json` writes: every rule and check, with its metadata and what it rests on.

A document of its own, not a section of a `Report` (nothing is planned): `planner.commands.rules` fills
it from the registry and `planner/data/rule_sources.yaml`, and the codec writes it as it writes a report
(`planner.core.render.json_report.record_text`), so `codec.load(RulesListing, json)` reads it back.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Struct

from planner.core.document.codec import key
from planner.core.model.findings import Severity

# `aws` (an AWS sentence), `policy` (planner's own decision) or `unsourced` (no stored page states it)
RestsOnKind = Literal["aws", "policy", "unsourced"]


class ListedQuote(Struct, frozen=True):
    """One sentence copied verbatim from `page`, the day it was read, and what planner reads in it."""

    page: str
    quote: str
    read: str  # the day, as ISO 8601 writes it (2026-12-05)
    says: Annotated[str, key(omit="empty")] = ""


class RestsOn(Struct, frozen=True):
    """What a rule rests on: its kind, the sentences, and planner's policy, what was searched, or why the
    severity is what it is (each left out when there is none)."""

    kind: RestsOnKind
    quotes: tuple[ListedQuote, ...]
    policy: Annotated[str, key(omit="empty")] = ""
    unsourced: Annotated[str, key(omit="empty")] = ""
    note: Annotated[str, key(omit="empty")] = ""


class ListedRule(Struct, frozen=True):
    """A rule or check as the registry declares it, with what it rests on."""

    id: str
    severity: Severity
    category: str
    description: str
    source: Annotated[str, key(url=True)]  # the public page the rule rests on
    remediation: str
    rests_on: RestsOn


class RulesListing(Struct, frozen=True):
    """Every rule and check, by id (the spec rules and the preflight checks)."""

    rules: tuple[ListedRule, ...]
