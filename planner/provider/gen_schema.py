"""Write the component package's schema to `planner/provider/schema.json`.

The schema is inferred from the code each time the plugin starts; the committed copy is for
readers and code review (what a change does to TypeScript, Go, C# and YAML users), and
`tests/test_provider.py` fails when it is stale. Run: `python -m planner.provider.gen_schema`.
"""

from __future__ import annotations

import json
from pathlib import Path

from planner.provider import schema

PATH = "planner/provider/schema.json"


def render() -> str:
    """The schema as committed: sorted keys, two-space indent, final newline (stable diffs)."""
    return json.dumps(schema(), indent=2, sort_keys=True) + "\n"


def main() -> None:
    out = Path(__file__).resolve().parent / "schema.json"
    out.write_text(render(), encoding="utf-8")
    print(f"wrote {PATH}")


if __name__ == "__main__":
    main()
