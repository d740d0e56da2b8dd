"""`planner preflight --program DIR --stack NAME`: the read-back cluster checked against the account (moto)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from test_program_plan import HAND_WRITTEN, project

pytestmark = pytest.mark.usefixtures("isolated_aws")


def test_preflight_checks_the_cluster_a_program_declares(moto, tmp_path: Path) -> None:
    d = project(tmp_path, "schedule: {hours: 24}", main=HAND_WRITTEN)
    res = run_cli("preflight", "--program", str(d), "--stack", "dev", "--format", "json")
    assert res.code in (0, 1), res.err
    (stack,) = json.loads(res.out)["stacks"]
    assert stack["region"] == "us-east-2" and stack["summary"]["instances"] == 2
    fs = stack["findings"]
    assert {f["rule"] for f in fs} <= {
        "preflight-aws-error",
        "preflight-catalogue",
        "preflight-quota",
        "preflight-efa",
        "preflight-network",
        "preflight-offering",
        "preflight-reservation",
    }
    # moto's Service Quotas is not in us-east-2: the quota check's error, at the program's line of the group
    (err,) = [f for f in fs if f["rule"] == "preflight-aws-error"]
    assert err["file"] == str(d / "app.py") and err["line"] == 8 and err["resource"].endswith("::trainers")


def test_a_type_the_region_does_not_offer_is_found_for_a_program(moto, tmp_path: Path) -> None:
    """No zone in the program: the region is asked; a type offered nowhere there is an error at its line."""
    main = HAND_WRITTEN.replace(', availability_zone="us-east-2b"', "").replace("trn2.48xlarge", "p5en.48xlarge")
    d = project(tmp_path, "schedule: {hours: 24}", main=main)
    (d / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  aws:region: sa-east-1\n")
    res = run_cli("preflight", "--program", str(d), "--stack", "dev", "--format", "json")
    fs = json.loads(res.out)["stacks"][0]["findings"]
    offered = [f for f in fs if f["rule"] == "preflight-offering"]
    assert all("is not in sa-east-1" not in f["message"] for f in fs)  # no "zone '' not in the region"
    assert offered and all(
        f["file"] == str(d / "app.py") and "offered in no Availability Zone of sa-east-1" in f["message"]
        for f in offered
    )


def test_preflight_program_options_go_together(tmp_path: Path) -> None:
    res = run_cli("preflight", "--program", str(tmp_path), "stacks")
    assert res.code == 2 and "give stack files or --program, not both" in res.err


def test_preflight_with_no_path_checks_the_projects_program(moto, tmp_path: Path) -> None:
    """In a project whose stack config holds planning keys only, `planner preflight` checks the program's cluster."""
    d = project(tmp_path, "schedule: {hours: 24}", main=HAND_WRITTEN)
    res = run_cli("preflight", "--format", "json", cwd=d)
    assert res.code in (0, 1), res.err
    (stack,) = json.loads(res.out)["stacks"]
    assert stack["file"] == "app.py" and stack["summary"]["instances"] == 2
