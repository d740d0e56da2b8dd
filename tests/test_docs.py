"""The documentation site: `mkdocs build --strict` passes, the reference pages are what the
code generates, and the README stays a short front page that links into the site.

`mkdocs build --strict` fails on a broken link or anchor, a page missing from the nav, or a
nav entry without its page (mkdocs.yml, `validation:`), so a moved section cannot leave a
dangling reference behind. The build writes into a temporary folder, never into `site/`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tools import gen_reference

README_LIMIT = 20 * 1024


def test_mkdocs_build_is_strict_and_clean(tmp_path: Path) -> None:
    mkdocs = Path(sys.executable).parent / "mkdocs"
    if not mkdocs.exists():
        pytest.fail("mkdocs is not installed: `make setup` installs the docs extra")
    res = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    assert res.returncode == 0, res.stderr
    assert "WARNING" not in res.stderr, res.stderr
    assert (tmp_path / "site" / "tasks" / "components" / "index.html").is_file()
    assert (tmp_path / "site" / "reference" / "rules" / "index.html").is_file()


@pytest.mark.parametrize("name", sorted(gen_reference.pages()))
def test_reference_page_is_generated_from_the_code(name: str) -> None:
    path = (gen_reference.REFERENCE / name).resolve()
    assert path.is_file(), f"{path.relative_to(ROOT)} is missing: run `.venv/bin/python -m tools.gen_reference`"
    assert path.read_text(encoding="utf-8") == gen_reference.pages()[name], (
        f"{path.relative_to(ROOT)} is stale: run `.venv/bin/python -m tools.gen_reference`"
    )


def test_the_rules_reference_lists_every_rule() -> None:
    from planner.core import rules

    text = (gen_reference.REFERENCE / "rules.md").read_text(encoding="utf-8")
    for rule_id in rules.registry():
        assert f"| `{rule_id}` |" in text


def test_the_stack_schema_reference_covers_the_annotated_example() -> None:
    """Every key the parser accepts appears in the hand-written annotated schema, and no other."""
    from planner.core.input import stack_files as parse

    page = (ROOT / "docs" / "stack-schema.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(.*?)```", page, flags=re.S).group(1)
    example = yaml.safe_load(block)["config"][parse.CLUSTER_KEY]
    assert set(example) == set(parse.CLUSTER_KEYS)
    assert set(example["node_groups"][0]) <= set(parse.GROUP_KEYS)
    # an SSD file system, with an Intelligent-Tiering one's keys shown commented out (they do not go together)
    assert set(example["lustre"]) <= set(parse.LUSTRE_KEYS)
    fs = block.split("    lustre:")[1].split("\n", 1)[1].split("    schedule:")[0]
    assert set(re.findall(r"^\s+#? ?(\w+):", fs, flags=re.M)) == set(parse.LUSTRE_KEYS)
    # a workload names a model or gives parameters and an MFU: the other way is shown commented out
    assert set(example["workload"]) <= set(parse.WORKLOAD_KEYS)
    written = set(
        re.findall(r"^\s+#? ?(\w+):", block.split("workload:")[1].split("\n", 1)[1].split("budget:")[0], flags=re.M)
    )
    assert written == set(parse.WORKLOAD_KEYS)


def test_readme_is_a_short_front_page_linking_into_the_site() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= README_LIMIT
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    local = [link for link in links if not link.startswith("https://")]
    assert local, "the README links to the documentation"
    for link in local:
        assert (ROOT / link).is_file(), f"README.md links to {link}, which does not exist"
    nav = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)["nav"]
    in_nav = set(_pages(nav))
    for link in local:
        if link.startswith("docs/"):
            assert link.removeprefix("docs/") in in_nav, f"{link} is linked from the README but not in the nav"


def test_every_task_page_is_in_the_nav_and_linked_from_the_readme() -> None:
    """The README's task list is the front door: each task page is on the site and linked there."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "# - " not in text, "a nav entry is still commented out"
    nav = set(_pages(yaml.load(text, Loader=_Loader)["nav"]))
    tasks = sorted("tasks/" + p.name for p in (ROOT / "docs" / "tasks").glob("*.md"))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for task in tasks:
        assert task in nav, task
        assert f"(docs/{task})" in readme, task
    for page in (
        "getting-started.md",
        "design.md",
        "benchmarks.md",
        "security.md",
        "editor-schema.md",
        "reference/rule-sources.md",
    ):
        assert page in nav, page
        assert f"(docs/{page})" in readme, page


class _Loader(yaml.SafeLoader):
    """mkdocs.yml's `!!python/name:` tags are read as plain strings here."""


_Loader.add_multi_constructor("tag:yaml.org,2002:python/name:", lambda loader, suffix, node: suffix)


def _pages(nav: list) -> list[str]:
    out = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        out += _pages(value) if isinstance(value, list) else [value]
    return out


def test_the_docs_use_no_private_words() -> None:
    """Docs are read by users: no "seed", no "the facts",
    no path into this project's private folders (the same check as every command's output)."""
    from tests.test_private_words import private_words

    pages = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "mkdocs.yml"]
    found = {str(p.relative_to(ROOT)): words for p in pages if (words := private_words(p.read_text(encoding="utf-8")))}
    assert not found, found
