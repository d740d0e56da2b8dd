"""Smoke tests of an installed planner: what the release workflow runs against the built wheel.

Run with the Python of a clean virtualenv that has the wheel installed, from outside the
checkout, so `planner` is the installed one (the script says where it was imported from):

    /tmp/venv/bin/python path/to/tools/smoke.py --stacks path/to/stacks [--extras]

It plans the bundled stacks in every format, re-renders the JSON report, lists the rules and,
with `--extras` (the wheel installed with `[all]`), imports the components, the policy pack's
module and the AWS adapter. Each check prints one line; the first failure exits 1.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=300, check=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="smoke.py", description=__doc__.splitlines()[0])
    parser.add_argument("--stacks", type=Path, required=True, help="the bundled stacks folder")
    parser.add_argument("--extras", action="store_true", help="also import what [all] brings")
    args = parser.parse_args(argv)
    import planner

    where = Path(planner.__file__).resolve()
    planner_cli = shutil.which("planner", path=str(Path(sys.executable).parent))
    checks: list[tuple[str, bool, str]] = []
    checks.append(("planner is installed, not the checkout", "site-packages" in where.parts, str(where)))
    if planner_cli is None:
        checks.append(("the planner command is installed", False, str(Path(sys.executable).parent)))
        return _report(checks)
    version = _run(planner_cli, "--version")
    checks.append(("planner --version", version.stdout.strip() == f"planner {planner.__version__}", version.stdout))
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "plan.json"
        for fmt in ("table", "json", "markdown", "sarif", "github"):
            out = _run(planner_cli, "plan", str(args.stacks), "--format", fmt, "--output", str(Path(tmp) / fmt))
            checks.append((f"planner plan --format {fmt}", out.returncode == 0, out.stderr))
        shutil.copy(Path(tmp) / "json", report)
        doc = json.loads(report.read_text(encoding="utf-8"))
        stacks = len(list(args.stacks.glob("Pulumi.*.yaml")))
        checks.append(("the JSON report plans every stack", len(doc.get("stacks", [])) == stacks, f"{stacks} files"))
        rendered = _run(planner_cli, "render", str(report), "--format", "markdown")
        checks.append(
            ("planner render --format markdown", rendered.returncode == 0 and bool(rendered.stdout), rendered.stderr)
        )
    rules = _run(planner_cli, "rules")
    checks.append(("planner rules", rules.returncode == 0 and "efa" in rules.stdout, rules.stderr))
    if args.extras:
        code = "import planner.components, planner.policy, planner.aws, planner.provider"
        imported = _run(sys.executable, "-c", code)
        checks.append(("the [all] adapters import", imported.returncode == 0, imported.stderr))
    return _report(checks)


def _report(checks: list[tuple[str, bool, str]]) -> int:
    for name, ok, detail in checks:
        print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail.strip()[:500]}"))
        if not ok:
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
