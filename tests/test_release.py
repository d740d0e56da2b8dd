"""The project's own CI, drift and release workflows, and the checks a release makes before it builds."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tools import release_check

WORKFLOWS = ROOT / ".github" / "workflows"


def _workflow(name: str) -> dict[str, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads `on:` as true
    return data


def _runs(job: dict[str, Any]) -> str:
    return "\n".join(str(s.get("run", "")) for s in job["steps"])


def test_ci_runs_the_readmes_make_test_on_every_supported_python() -> None:
    ci = _workflow("ci.yml")
    assert {"pull_request", "push"} <= set(ci["on"])
    assert ci["permissions"] == {"contents": "read"}
    (job,) = ci["jobs"].values()
    assert job["strategy"]["matrix"]["python"] == ["3.11", "3.12", "3.13"]
    assert "make test" in _runs(job)
    classifiers = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["classifiers"]
    supported = [c.rsplit(" ", 1)[1] for c in classifiers if c.startswith("Programming Language :: Python :: 3.")]
    assert supported == job["strategy"]["matrix"]["python"]


def test_release_builds_once_checks_the_wheel_then_publishes_without_a_token() -> None:
    rel = _workflow("release.yml")
    assert rel["on"] == {"push": {"tags": ["v*"]}} and rel["permissions"] == {"contents": "read"}
    jobs = rel["jobs"]
    assert list(jobs) == ["build", "smoke", "publish", "github-release"]
    assert [jobs[j].get("needs") for j in jobs] == [None, "build", "smoke", "publish"]
    assert "tools.release_check" in _runs(jobs["build"]) and "python -m build" in _runs(jobs["build"])
    assert "python -m build" not in _runs(jobs["smoke"]) + _runs(jobs["publish"])  # built once
    assert jobs["smoke"]["strategy"]["matrix"]["python"] == ["3.11", "3.12", "3.13"]
    assert "tools/smoke.py" in _runs(jobs["smoke"])
    # least privilege: only publish gets an OIDC token, only the GitHub release may write
    assert jobs["publish"]["permissions"] == {"id-token": "write"}
    assert jobs["github-release"]["permissions"] == {"contents": "write"}
    assert all(jobs[j]["permissions"] == {"contents": "read"} for j in ("build", "smoke"))
    publish = jobs["publish"]["steps"][-1]
    assert publish["uses"].startswith("pypa/gh-action-pypi-publish@") and "password" not in publish.get("with", {})
    assert "release-notes.md" in _runs(jobs["github-release"])


def test_drift_runs_weekly_apart_from_the_tests_and_reports_in_an_issue() -> None:
    drift = _workflow("drift.yml")
    assert "schedule" in drift["on"] and "workflow_dispatch" in drift["on"]
    (job,) = drift["jobs"].values()
    assert job["permissions"] == {"contents": "read", "issues": "write"}
    assert "make drift" in _runs(job) and "gh issue create" in _runs(job)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    test_recipe = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "drift" not in test_recipe


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the three files a release reads, to edit."""
    (tmp_path / "planner").mkdir()
    shutil.copy(ROOT / "planner" / "__init__.py", tmp_path / "planner" / "__init__.py")
    for name in ("CHANGELOG.md", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def _ready(root: Path, url: str = "https://github.com/acme/planner") -> None:
    ver = release_check.version(root)
    log = root / "CHANGELOG.md"
    log.write_text(log.read_text(encoding="utf-8").replace(f"## {ver} (unreleased)", f"## {ver} (2027-01-15)"))
    py = root / "pyproject.toml"
    urls = f'\n[project.urls]\nSource = "{url}"\nChangelog = "{url}/blob/main/CHANGELOG.md"\n'
    text = py.read_text(encoding="utf-8")
    py.write_text(text.replace("\n[project.scripts]", urls + "\n[project.scripts]", 1), encoding="utf-8")


def test_a_ready_release_passes_and_its_notes_are_the_changelog_section(checkout: Path) -> None:
    _ready(checkout)
    ver = release_check.version(checkout)
    found, notes = release_check.problems(f"v{ver}", "https://github.com/acme/planner", checkout)
    assert found == []
    changelog = (checkout / "CHANGELOG.md").read_text(encoding="utf-8")
    assert notes.strip() and notes.strip() in changelog and "\n## " not in notes


def test_each_reason_not_to_release_is_one_line(checkout: Path) -> None:
    ver = release_check.version(checkout)
    found, _ = release_check.problems("v9.9.9", "https://github.com/acme/planner", checkout)
    assert found == [
        f"tag 'v9.9.9': expected 'v{ver}' (planner/__init__.py: __version__ = '{ver}')",
        f"CHANGELOG.md: expected a heading '## {ver} (YYYY-MM-DD)' dated for the release",
        "pyproject.toml [project.urls]: expected Source, Documentation and Changelog under https://github.com/acme/planner",
    ]
    _ready(checkout, url="https://github.com/someone-else/planner")
    found, _ = release_check.problems(f"v{ver}", "https://github.com/acme/planner", checkout)
    assert found == ["pyproject.toml [project.urls]: Changelog, Source not under https://github.com/acme/planner"]


def test_the_repository_as_it_is_names_what_the_first_release_needs(capsys: pytest.CaptureFixture[str]) -> None:
    """Until a maintainer dates the changelog and sets the URLs, a tag is refused with exit 2."""
    assert (
        release_check.main(["--tag", "v" + release_check.version(), "--repository-url", "https://github.com/a/b"]) == 2
    )
    err = capsys.readouterr().err
    assert "release: CHANGELOG.md: expected a heading" in err and "[project.urls]" in err
