"""Numbers and money, one style for every human format."""

from __future__ import annotations


def usd(x: float | None) -> str:
    """`$1,234,567.89`; "unknown" (never $0) for a missing figure."""
    return "unknown" if x is None else ("-" if x < 0 else "") + f"${abs(x):,.2f}"


def usd_rate(x: float | None, unit: str = "h") -> str:
    """A price per unit with cents, more digits only when the source gave them: `$63.158/h`... as `$63.16/h`.

    Rates print to the cent like every other amount; a rate under one dollar keeps up to
    four digits so $0.145/GB-month does not read as $0.14.
    """
    if x is None:
        return "unknown"
    if abs(x) >= 1:
        return f"${x:,.2f}/{unit}"
    return f"${x:,.4f}".rstrip("0").rstrip(".") + f"/{unit}"


_SCALES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))


def count(x: float | int | None, unit: str = "") -> str:
    """A large count for people: `70 B parameters`, `15 T tokens`, `1,200` below a million."""
    if x is None:
        return "unknown"
    for scale, letter in _SCALES:
        if abs(x) >= scale and scale >= 1e6:
            v = x / scale
            s = f"{v:,.0f}" if float(v).is_integer() else f"{v:,.2f}".rstrip("0").rstrip(".")
            return f"{s} {letter}" + (f" {unit}" if unit else "")
    s = f"{x:,.0f}" if float(x).is_integer() else f"{x:,.2f}"
    return s + (f" {unit}" if unit else "")


def num(x: float | int | None, digits: int = 1) -> str:
    """`1,234` for whole numbers, `1,234.5` otherwise; `n/a` for a missing figure."""
    if x is None:
        return "n/a"
    if isinstance(x, int) or float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:,.{digits}f}"
