"""lustre-security-group: an FSx for Lustre file system's security groups, together, let in TCP 988 and
1018-1023 (on a program's resources and in the pack's planner-lustre-security-group).

AWS, "Creating an FSx for Lustre file system fails" (https://docs.aws.amazon.com/fsx/latest/LustreGuide/
cannot-create-fs.html): "The file system cannot be created because the default security group in the
subnet provided or the provided security groups do not permit Lustre LNET network traffic on port 988"
and "You must set up the security group to allow inbound traffic on ports 988 and 1018-1023".
"""

from __future__ import annotations

from typing import Any

import pytest
from test_policy_pack import SG, SG_RULE, arn, hand_written, self_sg

from planner.core import rules
from planner.core.model.findings import Fix
from planner.policy import policies
from planner.policy.testing import Spec, check

LUSTRE = {"deploymentType": "SCRATCH_2", "storageCapacity": 1200}


def _group(ingress: list[dict[str, Any]], sg_id: str = "sg-0fsx000000000001") -> Spec:
    return Spec(
        SG,
        "fsx",
        {
            "arn": arn("security-group", sg_id),
            "name": "fsx-1a2b3c4",
            "vpcId": "vpc-0a1b2c3d4e5f60718",
            "ingress": ingress,
        },
    )


def _tcp(low: int, high: int) -> dict[str, Any]:
    return {"protocol": "tcp", "fromPort": low, "toPort": high, "self": True}


def _found(extra: list[Spec], groups: list[str]) -> list[str]:
    specs = hand_written(lustre={**LUSTRE, "securityGroupIds": groups}) + extra
    return [r.message for r in check(specs, [policies.lustre_security_group])]


def test_the_rule_is_registered_as_an_error_with_its_aws_page() -> None:
    r = rules.registry()["lustre-security-group"]
    assert r.severity == "error" and r.source.endswith("/LustreGuide/cannot-create-fs.html")


@pytest.mark.parametrize(
    ("ingress", "missing"),
    [
        ([_tcp(22, 22)], "988 or 1018-1023"),
        ([_tcp(988, 988)], "1018-1023"),  # the near miss: creation succeeds, clients cannot mount through 1018-1023
        ([_tcp(1018, 1023)], "988"),
    ],
)
def test_a_group_that_refuses_the_lnet_ports_is_an_error(ingress: list[dict[str, Any]], missing: str) -> None:
    (message,) = _found([_group(ingress)], ["sg-0fsx000000000001"])
    assert message.startswith("[lustre-security-group] ")
    assert f"do not let in TCP {missing};" in message


@pytest.mark.parametrize(
    "ingress",
    [
        [_tcp(988, 988), _tcp(1018, 1023)],  # LustreStorage's two rules
        [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True}],  # all traffic
        [_tcp(0, 65535)],
    ],
)
def test_a_group_that_lets_them_in_is_not_reported(ingress: list[dict[str, Any]]) -> None:
    assert _found([_group(ingress)], ["sg-0fsx000000000001"]) == []


def test_the_groups_are_judged_together_and_separate_rule_resources_count() -> None:
    """988 in one group, 1018-1023 in another (a separate aws.ec2.SecurityGroupRule): AWS applies both."""
    other = _group([], "sg-0fsx000000000002")
    rule = Spec(
        SG_RULE,
        "lnet",
        {"type": "ingress", "protocol": "tcp", "fromPort": 1018, "toPort": 1023, "self": True,
         "securityGroupId": "sg-0fsx000000000002"},
    )  # fmt: skip
    found = _found([_group([_tcp(988, 988)]), other, rule], ["sg-0fsx000000000001", "sg-0fsx000000000002"])
    assert found == []


def test_groups_planner_cannot_see_are_not_judged() -> None:
    """A group from outside the program (or none named: the subnet's default group) says nothing either way."""
    assert _found([], ["sg-0outside0000000001"]) == []
    specs = hand_written(lustre=LUSTRE)
    assert check(specs, [policies.lustre_security_group]) == []


def test_a_programs_plan_reports_it_at_the_file_system_with_a_fix_in_its_terms() -> None:
    from planner.policy.testing import stack_args
    from planner.readback.resource_inputs import program_violations
    from planner.readback.resources import Graph, from_policy

    specs = hand_written(lustre={**LUSTRE, "securityGroupIds": ["sg-0fsx000000000001"]}) + [_group([_tcp(22, 22)])]
    graph = Graph(from_policy(r) for r in stack_args(specs).resources)
    (v,) = [v for v in program_violations(graph) if v.rule == "lustre-security-group"]
    assert v.urn is not None and v.urn.endswith("LustreFileSystem::scratch")
    assert isinstance(v.fix, Fix)
    (edit,) = v.fix.edits  # an ingress rule on one of the file system's security groups
    assert edit.resource == v.urn and edit.op == "add" and edit.path == ("securityGroupIds[]", "ingress")
    assert "from_port=988" in edit.note and "from_port=1018, to_port=1023" in edit.note
    assert self_sg().props["ingress"][0]["protocol"] == "-1"  # the EFA group of hand_written stays as it was
