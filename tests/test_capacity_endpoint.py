"""`planner capacity` against a local endpoint over HTTP, reached through the standard SDK settings
(`AWS_ENDPOINT_URL_EC2`, `AWS_ENDPOINT_URL`): the CLI runs as its own process, and every answer,
EC2's XML, an AWS error and a captive portal's page, comes over the wire."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.ec2_capacity_stub import serve, three_regions
from tests.test_preflight_helpers import CLEARED, FAKE_CREDENTIALS
from tests.test_preflight_moto_server import endpoint  # noqa: F401 - the moto_server fixture


def _capacity(tmp_path: Path, env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in CLEARED and k not in FAKE_CREDENTIALS and not k.startswith("AWS_ENDPOINT_URL")
    }
    base.update(
        FAKE_CREDENTIALS,
        AWS_DEFAULT_REGION="us-east-1",
        AWS_CONFIG_FILE=str(tmp_path / "no-config"),
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "no-credentials"),
        AWS_EC2_METADATA_DISABLED="true",
        PYTHONPATH=str(ROOT),
        **env,
    )
    return subprocess.run(
        [sys.executable, "-m", "planner", "capacity", *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=base,
        timeout=120,
    )


@pytest.mark.parametrize("setting", ["AWS_ENDPOINT_URL_EC2", "AWS_ENDPOINT_URL"])
def test_the_search_goes_to_the_configured_endpoint(tmp_path: Path, setting: str) -> None:
    scenario = three_regions()
    scenario.html.add("us-west-1")
    with serve(scenario) as url:
        done = _capacity(
            tmp_path,
            {setting: url},
            "--instance-type",
            "p5en.48xlarge",
            "--count",
            "16",
            "--hours",
            "336",
            "--regions",
            "us-east-1,us-east-2,us-west-2,eu-north-1,us-west-1",
            "--deadline",
            "2027-01-06",
            "--format",
            "json",
        )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)["capacity"]
    assert doc["pick"]["offering_ids"] == ["cb-0e2b7d1c5a9f3e826"] and doc["pick"]["hours"] == 340.5
    by_region = {r["region"]: r for r in doc["regions"]}
    assert by_region["eu-north-1"]["code"] == "UnauthorizedOperation"
    assert by_region["us-west-1"]["code"] == "NotAws" and "not as AWS does" in by_region["us-west-1"]["error"]
    assert [by_region[r]["offerings"] for r in ("us-east-1", "us-east-2", "us-west-2")] == [1, 2, 1]
    asked = {
        (region, p["CapacityDurationHours"], p["InstanceType"], p["InstanceCount"], p["AllAvailabilityZones"])
        for region, p in scenario.requests
        if region == "us-east-2"
    }
    assert asked == {
        ("us-east-2", "336", "p5en.48xlarge", "16", "true"),
        ("us-east-2", "504", "p5en.48xlarge", "16", "true"),
    }


def test_moto_server_which_lacks_the_call_is_a_region_line(tmp_path: Path, endpoint: str) -> None:
    """moto does not implement DescribeCapacityBlockOfferings: its answer is the region's line, not "no capacity"."""
    done = _capacity(
        tmp_path,
        {"AWS_ENDPOINT_URL_EC2": endpoint},
        "--instance-type",
        "p5en.48xlarge",
        "--count",
        "2",
        "--hours",
        "24",
        "--regions",
        "us-east-1",
        "--format",
        "json",
    )
    assert done.returncode == 1, done.stderr
    doc = json.loads(done.stdout)["capacity"]
    assert doc["options"] == [] and doc["pick"] is None
    assert doc["regions"][0]["error"] and doc["regions"][0]["code"] == "NotAws"
