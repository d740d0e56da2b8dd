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


# --- a program's existing subnets: their free addresses against the interfaces that need one ------------

EXISTING_SUBNET = """
import pulumi_aws as aws
lt = aws.ec2.LaunchTemplate("trainers", instance_type="p5en.48xlarge", image_id="ami-0123456789abcdef0",
    metadata_options={{"http_tokens": "required"}}, placement={{"availability_zone": "us-east-2b"}},
    network_interfaces=[{{"network_card_index": c, "device_index": 0 if c == 0 else 1,
                         "interface_type": "efa" if c == 0 else "{kind}", "subnet_id": "{subnet}"}} for c in range(16)])
aws.autoscaling.Group("trainers", desired_capacity={count}, max_size={count}, min_size=0,
                      vpc_zone_identifiers=["{subnet}"], launch_template={{"id": lt.id, "version": "$Latest"}})
"""


def _free_address_findings(tmp_path: Path, count: int, kind: str = "efa-only") -> list[dict[str, object]]:
    import boto3

    ec2 = boto3.client("ec2", region_name="us-east-2")
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.1.0/28", AvailabilityZone="us-east-2b")["Subnet"]
    assert subnet["AvailableIpAddressCount"] == 11  # moto: a /28 less the addresses AWS keeps
    main = EXISTING_SUBNET.format(subnet=subnet["SubnetId"], count=count, kind=kind)
    d = project(tmp_path, "schedule: {hours: 24}", main=main)
    res = run_cli("preflight", "--program", str(d), "--stack", "dev", "--format", "json")
    assert res.code in (0, 1), res.err
    (stack,) = json.loads(res.out)["stacks"]
    return [f for f in stack["findings"] if f["rule"] == "preflight-network" and "free IP" in f["message"]]


def test_a_programs_existing_subnet_without_enough_free_addresses_is_a_warning(moto, tmp_path: Path) -> None:
    """12 instances, each with one address (its EFA-only interfaces take none), in a subnet with 11 free."""
    (hit,) = _free_address_findings(tmp_path, 12)
    assert hit["severity"] == "warning" and hit["file"] == str(tmp_path / "project" / "app.py")
    assert "has 11 free IP addresses" in hit["message"] and "need 12" in hit["message"]
    assert "EFA-only interfaces take none" in hit["message"]


def test_a_programs_existing_subnet_with_enough_free_addresses_passes(moto, tmp_path: Path) -> None:
    """The near miss: 11 instances, 11 addresses. The EFA-only interfaces would need 165 more were they counted."""
    assert _free_address_findings(tmp_path, 11) == []


def test_every_interface_with_an_address_counts(moto, tmp_path: Path) -> None:
    """One instance whose 16 interfaces are all EFA with ENA: 16 addresses, in a subnet with 11 free."""
    (hit,) = _free_address_findings(tmp_path, 1, kind="efa")
    assert "need 16" in hit["message"] and "(1 x 16)" in hit["message"]
