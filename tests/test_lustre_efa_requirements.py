"""`lustre-efa-requirements`: an EFA-enabled FSx for Lustre file system needs a metadata configuration and a
security group that allows all traffic with itself, on a program's resources (`planner plan --program` and
the pack plan the same read-back), on the model whatever built it, and not on what planner's components make.

The AWS sentences it rests on (Creating an FSx for Lustre file system fails,
https://docs.aws.amazon.com/fsx/latest/LustreGuide/cannot-create-fs.html, read 2026-12-05):
  "Insufficient security group permissions to create an EFA-enabled file system. Update security group to
  allow all internal inbound and outbound traffic." and "An EFA requires a security group that allows all
  inbound and outbound traffic to and from the security group itself and the security group of the clients if
  clients reside in a different security group."
The metadata configuration: no AWS page found that states it (the FSx API reference's EfaEnabled does not);
the Pulumi AWS provider's LustreFileSystem reference does, of `efa_enabled`: "This is only supported when
deploymentType is set to PERSISTENT_2, metadataConfiguration is used, and an EFA-enabled security group is
attached." The finding names that source for that part.
"""

from __future__ import annotations

from typing import Any

import msgspec.structs
import pytest

from planner.core import rules
from planner.core.input.stack_files import load_stack
from planner.core.planning.pipeline import plan_stack
from planner.policy.planning import plan_resources
from planner.policy.testing import Spec, stack_args
from tests.test_readback_rules import cluster

RULE = "lustre-efa-requirements"
LUSTRE = "aws:fsx/lustreFileSystem:LustreFileSystem"
SG = "aws:ec2/securityGroup:SecurityGroup"
ALL_SELF = [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True}]
LNET = [{"protocol": "tcp", "fromPort": 988, "toPort": 988, "cidrBlocks": ["10.0.0.0/16"]}]


# every test here reads a program's resources, with no stack config of its own
pytestmark = pytest.mark.usefixtures("no_stack_config")


def program(metadata: bool = True, self_rules: bool = True, efa: bool = True, groups: Any = ("sg-0efa",)) -> list[Spec]:
    sg = Spec(
        SG,
        "efa",
        {
            "id": "sg-0efa",
            "ingress": (ALL_SELF if self_rules else []) + LNET,
            "egress": ALL_SELF
            if self_rules
            else [{"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": ["0.0.0.0/0"]}],
        },
    )
    props: dict[str, Any] = {
        "deploymentType": "PERSISTENT_2",
        "storageCapacity": 4800,
        "perUnitStorageThroughput": 250,
        "efaEnabled": efa,
        "subnetIds": ["subnet-00000000"],
        "securityGroupIds": list(groups),
    }
    if metadata:
        props["metadataConfiguration"] = {"mode": "AUTOMATIC"}
    return [*cluster(), sg, Spec(LUSTRE, "fs", props)]


def fired(specs: list[Spec]) -> list[str]:
    outcome = plan_resources(stack_args(specs).resources, {})
    assert outcome.plan is not None, outcome.gaps
    return [f.message for f in outcome.plan.findings if f.rule == RULE]


def test_the_rule_is_declared_with_its_source() -> None:
    r = rules.get(RULE)
    assert r is not None and r.severity == "error" and r.remediation
    assert r.source == "https://docs.aws.amazon.com/fsx/latest/LustreGuide/cannot-create-fs.html"


def test_a_program_without_the_efa_security_group_fails_and_one_with_it_passes() -> None:
    (message,) = fired(program(self_rules=False))
    assert "do not allow all inbound and outbound traffic with themselves" in message
    assert "metadata" not in message
    assert fired(program()) == []


def test_a_program_without_a_metadata_configuration_fails() -> None:
    """AWS, Working with EFA-enabled file systems: "EFA is supported on Persistent 2 file systems with a metadata
    configuration specified, including file systems using the Intelligent-Tiering storage class." (read
    2026-12-05; before, no AWS page was found and the message cited the Pulumi provider's reference)."""
    (message,) = fired(program(metadata=False))
    assert "no metadata configuration" in message and "with a metadata configuration specified" in message
    assert "docs.aws.amazon.com/fsx/latest/LustreGuide/efa-file-systems.html" in message
    assert "security groups" not in message


def test_a_file_system_without_efa_needs_neither() -> None:
    assert fired(program(metadata=False, self_rules=False, efa=False)) == []


def test_a_group_from_outside_the_program_is_not_judged() -> None:
    """The security group rules of a group the program does not declare are not seen: nothing is said of them."""
    assert fired(program(groups=("sg-0elsewhere",))) == []


def test_on_the_model_whatever_built_it(stack_file) -> None:  # noqa: ANN001
    """A stack file says neither (planner's components create both): quiet. The same model with the fields a
    program's resources give: the finding, at the file system's `efa_enabled`, with `efa_enabled: false` as the
    alternative."""
    text = (
        "availability_zone: us-east-2b\nnode_groups:\n  - name: g\n    instance_type: trn2.48xlarge\n    count: 2\n"
        "lustre:\n  deployment_type: PERSISTENT_2\n  storage_capacity_gib: 4800\n  per_unit_storage_throughput: 250\n"
        "  efa_enabled: true\n"
    )
    stack = load_stack(str(stack_file(text, region="us-east-2")))
    assert [f for f in plan_stack(stack).findings if f.rule == RULE] == []
    assert stack.cluster.lustre is not None
    broken = msgspec.structs.replace(
        stack,
        cluster=msgspec.structs.replace(
            stack.cluster, lustre=msgspec.structs.replace(stack.cluster.lustre, metadata_configuration=False)
        ),
    )
    (f,) = [f for f in plan_stack(broken).findings if f.rule == RULE]
    assert f.path == ("lustre", "efa_enabled") or f.path[-2:] == ("lustre", "efa_enabled")
    assert f.fix is not None and [e.value for e in f.fix.alternatives] == [False]


def test_the_policy_pack_reports_it_on_the_file_system_once() -> None:
    from planner.policy.testing import check

    specs = program(metadata=False)
    found = [(r.policy, r.urn) for r in check(specs) if "[lustre-efa-requirements]" in r.message]
    fs_urn = next(s for s in stack_args(specs).resources if s.resource_type == LUSTRE).urn
    assert [u for _, u in found] == [fs_urn], found
    assert [r for r in check(program()) if "[lustre-efa-requirements]" in r.message] == []
