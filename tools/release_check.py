"""What the release workflow checks before it builds, and the release notes it publishes.

A tag `vX.Y.Z` is released only when `planner.__version__` is X.Y.Z, CHANGELOG.md has a dated
`## X.Y.Z (YYYY-MM-DD)` section (not "unreleased"), and pyproject.toml's `[project.urls]` point at
the repository being released (PyPI shows them; a fork's release would otherwise point home).
Prints the changelog section (the GitHub release's notes) to `--notes`; each problem is one line
on stderr, exit 2.

    python -m tools.release_check --tag v0.1.0 --repository-url https://github.com/OWNER/REPO --notes notes.md
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def version(root: Path = ROOT) -> str:
    """`planner.__version__`, read from the source (the checkout, not an installed copy)."""
    text = (root / "planner" / "__init__.py").read_text(encoding="utf-8")
    m = re.search(r'^__version__ = "([^"]+)"$', text, re.M)
    return m.group(1) if m else ""


def changelog_section(changelog: str, ver: str) -> tuple[str | None, str]:
    """The heading's date (None when the heading is missing or says unreleased) and the section's text."""
    heading = re.search(rf"^## {re.escape(ver)} \(([^)]*)\)\s*$", changelog, re.M)
    if heading is None:
        return None, ""
    rest = changelog[heading.end() :]
    nxt = re.search(r"^## ", rest, re.M)
    body = rest[: nxt.start()] if nxt else rest
    date = heading.group(1)
    return (date if re.fullmatch(r"\d{4}-\d{2}-\d{2}", date) else None), body.strip() + "\n"


def problems(tag: str, repository_url: str, root: Path = ROOT) -> tuple[list[str], str]:
    """Every reason not to release `tag`, and the release notes."""
    out: list[str] = []
    ver = version(root)
    if tag != f"v{ver}":
        out.append(f"tag {tag!r}: expected 'v{ver}' (planner/__init__.py: __version__ = {ver!r})")
    date, notes = changelog_section((root / "CHANGELOG.md").read_text(encoding="utf-8"), ver)
    if date is None:
        out.append(f"CHANGELOG.md: expected a heading '## {ver} (YYYY-MM-DD)' dated for the release")
    urls = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"].get("urls", {})
    base = repository_url.rstrip("/")
    wrong = sorted(k for k, v in urls.items() if not str(v).startswith(base))
    if not urls:
        out.append(f"pyproject.toml [project.urls]: expected Source, Documentation and Changelog under {base}")
    elif wrong:
        out.append(f"pyproject.toml [project.urls]: {', '.join(wrong)} not under {base}")
    return out, notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.release_check", description=__doc__.splitlines()[0])
    parser.add_argument("--tag", required=True, help="the pushed tag, e.g. v0.1.0")
    parser.add_argument("--repository-url", required=True, help="https://github.com/OWNER/REPO being released")
    parser.add_argument("--notes", type=Path, help="write the CHANGELOG section here")
    args = parser.parse_args(argv)
    found, notes = problems(args.tag, args.repository_url)
    for line in found:
        print(f"release: {line}", file=sys.stderr)
    if found:
        return 2
    if args.notes:
        args.notes.write_text(notes, encoding="utf-8")
    print(f"release: {args.tag} checks out")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
