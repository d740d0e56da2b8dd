"""`lustre-region` on a program's file system and on the components, as on stack files (tests/test_rules.py):
the Lustre User Guide's Deployment type availability table, read from a dated copy (fsx_lustre.yaml).

A case and a near miss each: an EFA-enabled PERSISTENT_2 file system in a Region the table marks * ("These AWS
Regions support Persistent-125 and Persistent-250 file systems with SSD storage class without EFA."), and the
same file system without EFA; PERSISTENT_2 in a Region whose column does not list it, and PERSISTENT_1 there.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_lustre_intelligent_tiering import LUSTRE, components  # noqa: F401 - components is a fixture

P2_EFA = {
    "deploymentType": "PERSISTENT_2",
    "storageCapacity": 2400,
    "perUnitStorageThroughput": 250,
    "efaEnabled": True,
    "metadataConfiguration": {"mode": "AUTOMATIC"},
    "subnetIds": ["subnet-00000000"],
}


def program_plan(props: dict[str, Any], region: str, zone: str) -> Any:
    from planner.policy.planning import plan_resources
    from planner.policy.testing import Spec, stack_args
    from tests.test_readback_rules import cluster

    specs = [*cluster(zones=(zone,)), Spec(LUSTRE, "fs", props)]
    outcome = plan_resources(stack_args(specs, region=region).resources, {})
    assert outcome.plan is not None, outcome.gaps
    return outcome.plan


def _region_findings(plan: Any) -> list[Any]:
    return [f for f in plan.findings if f.rule == "lustre-region"]


@pytest.mark.usefixtures("no_stack_config")
def test_a_programs_efa_file_system_in_a_region_marked_without_efa_is_warned_and_its_property_named() -> None:
    from planner.core.input.locations import fix_text

    plan = program_plan(P2_EFA, "ca-west-1", "ca-west-1a")
    (hit,) = _region_findings(plan)
    assert hit.severity == "warning" and "ca-west-1" in hit.message and "without EFA" in hit.message
    assert hit.resource and "LustreFileSystem" in hit.resource
    words = fix_text(plan.stack, hit.fix)
    assert "efa_enabled" in words and "false" in words.lower(), words
    near = program_plan({**P2_EFA, "efaEnabled": False}, "ca-west-1", "ca-west-1a")
    assert _region_findings(near) == []


@pytest.mark.usefixtures("no_stack_config")
def test_a_programs_persistent_2_in_a_region_its_column_does_not_list_is_warned() -> None:
    no_efa = {k: v for k, v in P2_EFA.items() if k not in ("efaEnabled", "metadataConfiguration")}
    plan = program_plan(no_efa, "eu-south-1", "eu-south-1a")
    (hit,) = _region_findings(plan)
    assert "does not list eu-south-1 for PERSISTENT_2" in hit.message
    assert hit.fix is not None and hit.fix.edits, hit.fix
    p1 = {**no_efa, "deploymentType": "PERSISTENT_1", "perUnitStorageThroughput": 200}
    assert _region_findings(program_plan(p1, "eu-south-1", "eu-south-1a")) == []


def _component_findings(name: str, lustre: Any, region: str, zone: str) -> list[dict[str, Any]]:
    from planner.components import ClusterArgs, NodeGroupArgs, P5enCluster
    from planner.testing import MotoMocks, run

    seen: dict[str, Any] = {}

    def declare() -> None:
        args = ClusterArgs(availability_zone=zone, node_groups=[NodeGroupArgs(name="t", count=2)], lustre=lustre)
        P5enCluster(name, args).findings.apply(lambda f: seen.__setitem__("findings", f))

    run(declare, MotoMocks(region))
    return [f for f in seen["findings"] if f["rule"] == "lustre-region"]


@pytest.mark.usefixtures("components")
def test_the_components_report_an_efa_file_system_in_a_region_marked_without_efa() -> None:
    from planner.components import LustreArgs

    efa = LustreArgs("PERSISTENT_2", 2400, 250, efa_enabled=True)
    (hit,) = _component_findings("efa", efa, "ca-west-1", "ca-west-1a")
    assert hit["severity"] == "warning" and hit["path"].endswith("lustre.efa_enabled")
    assert hit["fix"]["edits"] == [{"path": hit["path"], "op": "set", "value": False}]
    no_efa = LustreArgs("PERSISTENT_2", 2400, 250, efa_enabled=False)
    assert _component_findings("no-efa", no_efa, "ca-west-1", "ca-west-1a") == []
