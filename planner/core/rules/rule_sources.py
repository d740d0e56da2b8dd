"""What each rule and check rests on: the sentence AWS writes, or planner's own policy (`planner/data/rule_sources.yaml`).

Data, not code: each entry is a rule id with the pages it rests on, each page with the sentence
copied verbatim from it and the date it was read; a rule that rests on a choice of planner's says
so (`policy`), and one whose sentence no stored page was found to state says what was searched
(`unsourced`). `planner rules` (its JSON's `rests_on`, `planner.core.document.rules_listing.RestsOn`)
and the reference generator (`tools/gen_reference.py`: the rule reference and
docs/reference/rule-sources.md) read it; `planner plan` never does (start-up).
`tests/test_rule_sources.py` holds every registered rule and check to an entry.
"""

from __future__ import annotations

import datetime as _dt
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from msgspec import Struct

if TYPE_CHECKING:
    from planner.core.document.rules_listing import RestsOnKind

FILE = "rule_sources.yaml"
ELISION = "[...]"  # the one way a quote may leave words out: marked, never a bare "..."


class Quote(Struct, frozen=True):
    """One sentence (or a few, in the page's order) copied verbatim from `page`, read on `read`."""

    page: str
    quote: str
    read: _dt.date
    says: str = ""  # what planner reads in it, when that is not plain (a severity, a figure)


class RuleSource(Struct, frozen=True):
    """What rule `rule` rests on: AWS's sentences, planner's policy, or nothing found (what was searched)."""

    rule: str
    quotes: tuple[Quote, ...] = ()
    policy: str = ""  # planner's own decision, and the standard or guidance it follows
    unsourced: str = ""  # no stored page states what the rule checks: what was searched
    note: str = ""  # why the severity is what it is, when a sentence alone does not say
    source_differs: str = ""  # why the rule's declared `source` is not one of the pages

    @property
    def kind(self) -> RestsOnKind:
        """`aws` (an AWS sentence), `policy` (planner's decision) or `unsourced`."""
        return "unsourced" if self.unsourced else "policy" if self.policy else "aws"

    @property
    def pages(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(q.page for q in self.quotes))

    def summary(self) -> str:
        """One line: planner's policy, the first sentence in quotation marks, or what is unsourced."""
        if self.unsourced:
            return f"unsourced: {self.unsourced}"
        first = f'"{self.quotes[0].quote}"' if self.quotes else ""
        if self.policy:
            return f"planner's policy: {self.policy}" + (f" Following: {first}" if first else "")
        return first


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{FILE}: {where} is not a non-empty text")
    return " ".join(value.split())


def _quote(item: Any, where: str) -> Quote:
    if (
        not isinstance(item, dict)
        or not {"page", "quote", "read"} <= set(item)
        or set(item)
        - {
            "page",
            "quote",
            "read",
            "says",
        }
    ):
        raise ValueError(f"{FILE}: {where} needs page, quote and read (and may have says)")
    read = item["read"]
    if not isinstance(read, _dt.date):
        raise ValueError(f"{FILE}: {where}.read is not a date")
    return Quote(
        _text(item["page"], f"{where}.page"),
        _text(item["quote"], f"{where}.quote"),
        read,
        _text(item["says"], f"{where}.says") if "says" in item else "",
    )


def _entry(rule: str, value: Any) -> RuleSource:
    where = f"rules.{rule}"
    if isinstance(value, list):
        return RuleSource(rule, tuple(_quote(q, f"{where}[{i}]") for i, q in enumerate(value)))
    keys = {"sources", "policy", "unsourced", "note", "source_differs"}
    if not isinstance(value, dict) or set(value) - keys:
        raise ValueError(f"{FILE}: {where} is a list of sources or a mapping of {sorted(keys)}")
    quotes = value.get("sources", [])
    if not isinstance(quotes, list):
        raise ValueError(f"{FILE}: {where}.sources is not a list")
    texts = {k: _text(value[k], f"{where}.{k}") for k in keys - {"sources"} if k in value}
    return RuleSource(rule, tuple(_quote(q, f"{where}.sources[{i}]") for i, q in enumerate(quotes)), **texts)


@lru_cache(maxsize=1)
def load() -> dict[str, RuleSource]:
    """Every entry of the data file, by rule id (ValueError: an entry of the wrong shape)."""
    from planner.core.catalogue.shipped_data import raw

    data, _ = raw(FILE)
    entries = data.get("rules") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise ValueError(f"{FILE}: no `rules:` mapping")
    return {rule: _entry(rule, value) for rule, value in entries.items()}


def of(rule: str) -> RuleSource | None:
    return load().get(rule)
