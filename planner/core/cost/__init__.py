"""Cost before deployment: price books (data) and the estimate of a declared cluster.

Public API: `load_price_book(spec)`, `PriceBook.overlay(data, origin)`,
`estimate(stack, book, catalogue=None) -> CostEstimate`. The commands turn their options
into a price book in one place, `planner.commands.book_from_args` (it alone may reach the
AWS Price List, an adapter).
"""

from __future__ import annotations

from planner.core.cost.book import BUILTIN, Price, PriceBook, load_price_book
from planner.core.cost.estimate import HOURS_PER_MONTH, CostEstimate, CostLine, estimate

__all__ = [
    "BUILTIN",
    "HOURS_PER_MONTH",
    "CostEstimate",
    "CostLine",
    "Price",
    "PriceBook",
    "estimate",
    "load_price_book",
]
