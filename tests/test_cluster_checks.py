"""`check_cluster`: the checks across fields hold for a cluster whatever built it.

A `Cluster` built directly (as the read-back, the components and the pack build theirs) gets the
same problems, keyed by model path, as the stack file that declares it gets at its lines.
"""

from __future__ import annotations

import pytest

from planner.core.input.cluster_checks import ModelProblem, check_cluster
from planner.core.input.stack_files import CLUSTER_PATH, parse_cluster, parse_storage, planning_inputs
from planner.core.model.cluster import Budget, Cluster, Lustre, Network, NodeGroup
from planner.core.reading.problems import InputError

GROUPS = CLUSTER_PATH + ("node_groups",)


def group(i: int, name: str = "gpus", itype: str = "p5en.48xlarge", **more: object) -> NodeGroup:
    declared = frozenset({"name", "instance_type", *more} | (set() if "ultraservers" in more else {"count"}))
    return NodeGroup(name=name, instance_type=itype, count=2, path=GROUPS + (i,), declared=declared, **more)  # type: ignore[arg-type]


def cluster(*groups: NodeGroup, **more: object) -> Cluster:
    return Cluster("us-east-2a", groups, path=CLUSTER_PATH, **more)  # type: ignore[arg-type]


def test_a_valid_cluster_built_directly_has_no_problem() -> None:
    assert check_cluster(cluster(group(0), group(1, "more")), "us-east-2") == []


def test_problems_are_keyed_by_model_path() -> None:
    c = Cluster(
        "us-west-2a",
        (
            group(0),
            group(1),  # the same name
            group(2, "trn", "trn2u.48xlarge", ultraservers=1, ultraserver_type="u-trn2x64"),
            group(3, "solo", "p5.48xlarge", ultraservers=2),
            group(
                4,
                "cb",
                capacity_reservation_ids=("cr-0123456789abcdef0",),
                capacity_reservation_resource_group_arn="arn:aws:resource-groups:us-east-2:123456789012:group/g",
            ),
        ),
        path=CLUSTER_PATH,
        budget=Budget(path=CLUSTER_PATH + ("budget",)),
        network=Network(vpc_id="vpc-0123456789abcdef0", path=CLUSTER_PATH + ("network",)),
        lustre=Lustre(
            "PERSISTENT_2",
            1200,
            125,
            "eu-west-1a",
            path=CLUSTER_PATH + ("lustre",),
            declared=frozenset({"availability_zone"}),
        ),
    )
    got = {(p.path, p.message.split(" ")[0]) for p in check_cluster(c, "us-east-2")}
    assert got == {
        (CLUSTER_PATH + ("availability_zone",), "expected"),
        (GROUPS + (1, "name"), "duplicate"),
        (GROUPS + (3, "ultraservers"), "'ultraservers'"),
        (GROUPS + (4, "capacity_reservation_resource_group_arn"), "give"),
        (CLUSTER_PATH + ("lustre", "availability_zone"), "expected"),
        (CLUSTER_PATH + ("budget",), "expected"),
        (CLUSTER_PATH + ("network",), "missing"),
    }


def test_an_ultraserver_type_of_another_member_and_an_unnamed_choice() -> None:
    wrong = group(0, "trn", "trn2.48xlarge", ultraserver_type="u-trn2x64")
    several = group(1, "gb", "p6e-gb200.36xlarge")
    problems = check_cluster(cluster(wrong, several), "us-east-2")
    assert [p.path for p in problems] == [GROUPS + (0, "ultraserver_type"), GROUPS + (1,)]
    assert "u-trn2x64 is made of trn2u.48xlarge, not trn2.48xlarge" in problems[0].message
    assert "belongs to several UltraServer types" in problems[1].message


def test_an_unknown_zone_is_not_checked_and_a_declared_group_zone_is() -> None:
    unknown = Cluster("", (group(0),), path=CLUSTER_PATH)
    assert check_cluster(unknown, "us-east-2") == []
    elsewhere = cluster(group(0, availability_zone="us-east-1a"))
    assert check_cluster(elsewhere, "us-east-2") == [
        ModelProblem(
            GROUPS + (0, "availability_zone"),
            "expected an Availability Zone of us-east-2 (such as us-east-2a), got 'us-east-1a'",
        )
    ]


def test_the_stack_file_reader_reports_the_same_problem_at_its_line() -> None:
    mapping = {
        "availability_zone": "us-east-2a",
        "node_groups": [
            {"name": "gpus", "instance_type": "p5en.48xlarge", "count": 2},
            {"name": "gpus", "instance_type": "p5en.48xlarge", "count": 2},
        ],
    }
    with pytest.raises(InputError) as exc:
        parse_cluster(mapping, "us-east-2", "Pulumi.dev.yaml", {CLUSTER_PATH + ("node_groups", 1, "name"): 9})
    (problem,) = exc.value.problems
    assert (problem.line, problem.key) == (9, "planner:cluster.node_groups[1].name")
    direct = check_cluster(cluster(group(0), group(1)), "us-east-2")
    assert [p.message for p in direct] == [problem.message]


def test_a_file_system_alone_is_read_and_checked_as_a_clusters() -> None:
    fs = {"deployment_type": "PERSISTENT_2", "storage_capacity_gib": 1200, "per_unit_storage_throughput": 125}
    got = parse_storage({"availability_zone": "us-east-2a", "lustre": fs}, "us-east-2")
    assert got.node_groups == () and got.lustre is not None and got.lustre.availability_zone == "us-east-2a"
    with pytest.raises(InputError) as exc:
        parse_storage({"availability_zone": "us-west-2a", "lustre": fs}, "us-east-2", "LustreStorage('fs')")
    assert [p.key for p in exc.value.problems] == ["planner:cluster.availability_zone"]


def test_a_programs_planning_keys_are_typed_and_a_budget_without_a_limit_refused() -> None:
    keys = planning_inputs({"schedule": {"hours": 24}, "budget": {"total_usd": 1000}}, "Pulumi.dev.yaml")
    assert keys.schedule is not None and keys.schedule.hours == 24
    assert keys.budget is not None and keys.budget.total_usd == 1000
    with pytest.raises(InputError) as exc:
        planning_inputs({"budget": {"allow_incomplete": True}}, "Pulumi.dev.yaml")
    assert [(p.key, p.message) for p in exc.value.problems] == [
        ("planner:cluster.budget", "expected total_usd and/or monthly_usd")
    ]


def test_a_programs_cluster_keeps_where_each_value_came_from() -> None:
    """The read-back's provenance map: model path -> the resource, the property as the program writes
    it, and the file and line that declared the resource (what a fix in the program's terms names)."""
    from planner.readback.program_resources import from_program

    def urn(kind: str, name: str) -> str:
        return f"urn:pulumi:dev::proj::{kind}::{name}"

    template = urn("aws:ec2/launchTemplate:LaunchTemplate", "lt")
    group = urn("aws:autoscaling/group:Group", "trainers")
    resources = [
        {
            "type": "aws:ec2/launchTemplate:LaunchTemplate",
            "urn": template,
            "name": "lt",
            "custom": True,
            "props": {"instanceType": "p5.48xlarge", "id": "lt-1"},
            "source": ["__main__.py", 4],
        },
        {
            "type": "aws:autoscaling/group:Group",
            "urn": group,
            "name": "trainers",
            "custom": True,
            "props": {"desiredCapacity": 2, "minSize": 2, "maxSize": 2, "launchTemplate": {"id": "lt-1"}},
            "source": ["__main__.py", 9],
        },
    ]
    stack = from_program(resources, "dev", {"aws:region": "us-east-2"}, "__main__.py")
    assert stack is not None
    count = stack.provenance[CLUSTER_PATH + ("node_groups", 0, "count")]
    assert (count.resource, count.property, count.file, count.line) == (group, "desired_capacity", "__main__.py", 9)
    itype = stack.provenance[CLUSTER_PATH + ("node_groups", 0, "instance_type")]
    assert (itype.resource, itype.property, itype.line) == (template, "instance_type", 4)
