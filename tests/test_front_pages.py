"""Issue 34, item 8 (small things that stop people): the site's front page lists every task and concept
page the README does, and a local preflight against moto needs only the `[moto]` extra (boto3 and moto
with its server), not the test tools."""

from __future__ import annotations

import re
import tomllib

from conftest import ROOT

LINK = re.compile(r"\]\((docs/[^)#]+\.md)\)")


def test_the_site_index_lists_every_page_the_readme_does() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    linked = sorted({m.removeprefix("docs/") for m in LINK.findall(readme)})
    tasks = [p for p in linked if p.startswith("tasks/")]
    assert len(tasks) == len(list((ROOT / "docs" / "tasks").glob("*.md")))  # the README lists every task
    missing = [p for p in linked if f"]({p})" not in index and p != "index.md"]
    assert missing == [], f"docs/index.md does not link {missing}, which the README does"


def test_the_moto_extra_brings_moto_server_and_boto3_without_the_test_tools() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    moto = extras["moto"]
    names = {re.split(r"[<>=\[ ]", r)[0].lower() for r in moto}
    assert names == {"pulumi-cluster-planner", "moto"}
    assert "pulumi-cluster-planner[aws]" in moto  # boto3, which preflight calls moto's server with
    (spec,) = [r for r in moto if r.startswith("moto[")]
    assert "server" in spec.split("]")[0].split("[")[1].split(",")
    test_only = {re.split(r"[<>=\[ ]", r)[0].lower() for r in extras["test"]} - {"moto"}
    assert test_only and not (names & test_only)  # pytest, hypothesis, build...: none of them
