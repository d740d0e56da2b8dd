"""The stack schema: valid stacks become the typed model; each kind of bad input is one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.core.catalogue.instance_types import load
from planner.core.input.stack_files import load_stack, load_stacks, parse_cluster
from planner.core.reading.problems import InputError
from tests.conftest import ROOT

VALID = """
availability_zone: us-east-2b
node_groups:
  - name: trainers
    instance_type: trn2u.48xlarge
    ultraservers: 4
    purchase: capacity-block
    capacity_reservation_id: cr-0123456789abcdef0
  - name: eval
    instance_type: trn2.48xlarge
    count: 2
    availability_zone: us-east-2b
    efa: false
placement_group: none
lustre:
  deployment_type: PERSISTENT_2
  storage_capacity_gib: 4800
  per_unit_storage_throughput: 250
  s3_import_path: s3://bucket/prefix
schedule:
  hours: 336
workload:
  parameters: 70e9
  tokens: 15e12
  precision: fp8
  mfu: 0.4
budget:
  total_usd: 300000
suppress:
  - rule: placement-group
    reason: capacity blocks bring their own placement
"""


def problems_of(path: Path) -> list[str]:
    with pytest.raises(InputError) as exc:
        load_stack(str(path))
    return [str(p) for p in exc.value.problems]


def test_valid_stack_becomes_the_model(stack_file):
    stack = load_stack(str(stack_file(VALID)))
    c = stack.cluster
    assert stack.name == "test" and stack.region == "us-east-2"
    trainers, eval_ = c.node_groups
    assert (trainers.count, trainers.ultraservers, trainers.purchase, trainers.efa) == (16, 4, "capacity-block", True)
    assert trainers.capacity_reservation_ids == ("cr-0123456789abcdef0",)
    assert (eval_.count, eval_.efa, eval_.purchase, eval_.public_ip) == (2, False, "on-demand", False)
    assert c.placement == "none"
    assert c.lustre.deployment_type == "PERSISTENT_2" and c.lustre.availability_zone == "us-east-2b"
    assert c.workload.parameters == 70e9 and c.workload.tokens == 15e12 and c.workload.precision == "fp8"
    assert c.schedule.hours == 336 and c.budget.total_usd == 300000 and c.budget.monthly_usd is None
    assert c.suppress[0].rule == "placement-group"


def test_lines_point_at_values(stack_file):
    path = stack_file(VALID)
    stack = load_stack(str(path))
    text = path.read_text().splitlines()
    g = stack.cluster.node_groups[1]
    line = stack.line(g.path + ("count",))
    assert text[line - 1].strip() == "count: 2"
    # a key that was not written points at its node group
    assert text[stack.line(g.path + ("public_ip",)) - 1].strip() == "- name: eval"


def test_defaults(stack_file):
    stack = load_stack(
        str(
            stack_file(
                """
availability_zone: us-east-1a
node_groups:
  - {name: gpus, instance_type: p5en.48xlarge, count: 4}
""",
                region="us-east-1",
            )
        )
    )
    g = stack.cluster.node_groups[0]
    assert (g.purchase, g.efa, g.public_ip, g.availability_zone) == ("on-demand", True, False, "us-east-1a")
    assert stack.cluster.placement == "cluster"  # on-demand EFA group
    assert stack.cluster.lustre is None and stack.cluster.workload is None
    assert stack.cluster.root_volume_gib == g.root_volume_gib == 500  # what the components create


def test_root_volume_size_reaches_every_node_group(stack_file):
    stack = load_stack(
        str(
            stack_file("""
availability_zone: us-east-2b
root_volume_gib: "200"
node_groups:
  - {name: a, instance_type: trn2.48xlarge, count: 1}
  - {name: b, instance_type: trn2.48xlarge, count: 2}
""")
        )
    )
    assert stack.cluster.root_volume_gib == 200  # as `pulumi config set` writes it: a string
    assert [g.root_volume_gib for g in stack.cluster.node_groups] == [200, 200]


@pytest.mark.parametrize(
    "snippet, expected",
    [
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 0}",
            ":6: planner:cluster.node_groups[0].count: expected a positive integer, got 0",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: -3}",
            "count: expected a positive integer, got -3",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: two}",
            "count: expected a positive integer, got 'two'",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn9.48xlarge, count: 1}",
            "node_groups[0].instance_type: unknown instance type 'trn9.48xlarge'",
        ),
        (
            "availability_zone: us-west-2a\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}",
            "availability_zone: expected an Availability Zone of us-east-2",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2u.48xlarge, count: 4, ultraservers: 1}",
            "ultraservers: give either 'count' (instances) or 'ultraservers', not both",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, ultraservers: 1}",
            "'ultraservers' applies to UltraServer member types (p6e-gb200.36xlarge, trn2u.48xlarge), not trn2.48xlarge",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge}",
            "node_groups[0]: missing required key 'count'",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1, cuont: 2}",
            "node_groups[0].cuont: unknown key (did you mean 'count'?)",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1, efa: maybe}",
            "efa: expected true or false, got 'maybe'",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1, purchase: reserved}",
            "purchase: expected one of on-demand, capacity-block, spot, got 'reserved'",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}\n  - {name: a, instance_type: trn2.48xlarge, count: 1}",
            "duplicate node group name 'a'",
        ),
        ("availability_zone: us-east-2b\nnode_groups: []", "node_groups: expected a non-empty list of node groups"),
        (
            "node_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}",
            "missing required key 'availability_zone'",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}\nlustre: {deployment_type: SCRATCH_3, storage_capacity_gib: 1200}",
            "lustre.deployment_type: expected one of SCRATCH_1, SCRATCH_2, PERSISTENT_1, PERSISTENT_2, got 'SCRATCH_3'",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}\nworkload: {parameters: 7e9, tokens: 1e12, mfu: 1.5}",
            "workload.mfu: expected a fraction of peak between 0.01 and 1",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}\nworkload: {parameters: 7e9, tokens: 1e12}",
            "workload: missing required key 'mfu'",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}\nsuppress:\n  - {rule: placement-group}",
            "suppress[0]: missing required key 'reason'",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}\nplacement_group: spread",
            "placement_group: expected one of cluster, none, got 'spread'",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1, capacity_reservation_id: abc}",
            "capacity_reservation_id: expected a capacity reservation id such as cr-0123456789abcdef0, got 'abc'",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}\nnetwork: {vpc_id: vpc-0123456789abcdef0}",
            "network: missing required key 'subnet_id'",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}\nbudget: {total_usd: -5}",
            "budget.total_usd: expected a positive number, got -5",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}\nroot_volume_gib: 16385",
            ":7: planner:cluster.root_volume_gib: expected 1 to 16384 GiB (a gp3 volume), got 16385",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}\nroot_volume_gib: 0",
            "planner:cluster.root_volume_gib: expected a positive integer, got 0",
        ),
        (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 1}\nroot_volume_gib: 1.5",
            "planner:cluster.root_volume_gib: expected a positive integer, got 1.5",
        ),
    ],
)
def test_each_kind_of_invalid_input_is_one_clear_line(stack_file, snippet, expected):
    path = stack_file(snippet)
    lines = problems_of(path)
    assert any(expected in line for line in lines), lines
    assert all(line.startswith(str(path)) for line in lines)


def test_all_problems_reported_at_once_in_line_order(stack_file):
    path = stack_file("""
availability_zone: us-east-2b
node_groups:
  - {name: a, instance_type: trn2.48xlarge, count: -1}
  - {name: b, instance_type: nope, count: 1}
placement_group: maybe
""")
    lines = problems_of(path)
    assert len(lines) == 3
    assert [int(line.split(":")[1]) for line in lines] == sorted(int(line.split(":")[1]) for line in lines)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("config: [\n", "YAML syntax error"),
        ("", "expected a mapping, got nothing"),
        ("config:\n  aws:region: us-east-2\n", ":1: config: missing required key 'planner:cluster'"),
        ("config:\n  planner:cluster: {}\n", ":1: config: missing required key 'aws:region'"),
        ("config:\n  - aws:region\n", ":1: config: expected a mapping, got a list"),
        (
            "config:\n  aws:region: mars-1\n  planner:cluster: {}\n",
            "aws:region: expected an AWS region such as us-east-2, got 'mars-1'",
        ),
        ("config:\n  aws:region: us-east-2\n  aws:region: us-east-1\n", "duplicate key 'aws:region'"),
        (
            "a: &a [1,2]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
            "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n",
            "refused",
        ),
    ],
)
def test_unusable_files(tmp_path, text, expected):
    path = tmp_path / "Pulumi.x.yaml"
    path.write_text(text)
    lines = problems_of(path)
    assert any(expected in line for line in lines), lines


def test_binary_file_is_refused(tmp_path):
    path = tmp_path / "Pulumi.bin.yaml"
    path.write_bytes(b"\xff\xfe\x00junk")
    assert "not UTF-8 text" in problems_of(path)[0]


def test_anchors_and_merge_keys_are_read(stack_file):
    stack = load_stack(
        str(
            stack_file("""
availability_zone: us-east-2b
node_groups:
  - &base {name: a, instance_type: trn2.48xlarge, count: 2, purchase: on-demand}
  - <<: *base
    name: b
""")
        )
    )
    assert [(g.name, g.count) for g in stack.cluster.node_groups] == [("a", 2), ("b", 2)]


def test_parse_cluster_accepts_a_plain_mapping():
    """Pulumi config and component args arrive as dicts without lines: same checks apply."""
    cluster = parse_cluster(
        {
            "availability_zone": "us-east-2b",
            "node_groups": [{"name": "a", "instance_type": "trn2u.48xlarge", "ultraservers": 2}],
        },
        "us-east-2",
    )
    assert cluster.node_groups[0].count == 8
    with pytest.raises(InputError) as exc:
        parse_cluster(
            {"availability_zone": "us-east-2b", "node_groups": [{"name": "a", "instance_type": "x", "count": 1}]},
            "us-east-2",
            file="Pulumi.dev.yaml",
        )
    assert str(exc.value.problems[0]).startswith(
        "Pulumi.dev.yaml: planner:cluster.node_groups[0].instance_type: unknown"
    )


def test_trainium3_is_listed_but_not_declarable(stack_file):
    lines = problems_of(
        stack_file(
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn3u.48xlarge, count: 4}"
        )
    )
    assert (
        "'trn3u.48xlarge': AWS sells Trn3 Gen1 UltraServer (64 Trainium3) and Trn3 Gen2 UltraServer (144 Trainium3) "
        "since 2025-12-02, but the EC2 API lists no trn3 instance type yet"
    ) in lines[0]


def test_ultraservers_of_every_declarable_type(stack_file):
    """`ultraservers: N` is the UltraServer type's members x N, for every UltraServer type the catalogue declares."""
    for u in load().declarable_ultraserver_types:
        path = stack_file(
            f"availability_zone: us-east-1-dfw-2a\nnode_groups:\n  - {{name: a, instance_type: {u.member_instance_type}, "
            f"ultraserver_type: {u.name}, ultraservers: 2, purchase: capacity-block}}",
            region="us-east-1",
        )
        (g,) = load_stack(path).cluster.node_groups
        assert (g.count, g.ultraserver_type) == (2 * u.members, u.name)


def test_a_member_of_several_ultraserver_types_must_name_one(stack_file):
    lines = problems_of(
        stack_file(
            "availability_zone: us-east-1-dfw-2a\nnode_groups:\n  - {name: a, instance_type: "
            "p6e-gb200.36xlarge, ultraservers: 2}",
            region="us-east-1",
        )
    )
    assert lines[0].endswith(
        "p6e-gb200.36xlarge belongs to several UltraServer types: u-p6e-gb200x36 (9 instances), "
        "u-p6e-gb200x72 (18 instances); add ultraserver_type: with one of them"
    )
    lines = problems_of(
        stack_file(
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: "
            "trn2u.48xlarge, ultraserver_type: u-p6e-gb200x72, ultraservers: 2}"
        )
    )
    assert (
        "u-p6e-gb200x72 is made of p6e-gb200.36xlarge, not trn2u.48xlarge; trn2u.48xlarge belongs to u-trn2x64 (4 instances)"
        in lines[0]
    )


def test_bundled_stacks_are_valid():
    stacks = load_stacks([str(ROOT / "stacks")])
    assert {s.name for s in stacks} >= {"trn2-dev", "ultraserver-prod", "p5en-train"}


def _plain(folder, name: str, text: str) -> None:
    (folder / f"Pulumi.{name}.yaml").write_text(text, encoding="utf-8")


def test_a_folder_of_many_stacks_skips_the_plain_ones(tmp_path, capsys) -> None:
    """3 cluster stacks and 2 ordinary Pulumi stacks: the 3 are planned, the 2 named in one info line."""
    import shutil
    from pathlib import Path

    from planner.cli import main

    for f in sorted(Path("stacks").glob("Pulumi.*.yaml")):
        shutil.copy(f, tmp_path / f.name)
    _plain(tmp_path, "web", "config:\n  aws:region: us-east-2\n  web:replicas: 3\n")
    _plain(tmp_path, "db", "config:\n  db:size: small\n")
    assert main(["plan", str(tmp_path), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    import json

    assert [s["stack"] for s in json.loads(out)["stacks"]] == ["p5en-train", "trn2-dev", "ultraserver-prod"]
    assert err.count("\n") == 1 and "skipped 2 stack files without planner:cluster" in err
    assert f"{tmp_path}/Pulumi.db.yaml, {tmp_path}/Pulumi.web.yaml" in err
    # named on the command line, a plain stack stays an input error
    assert main(["plan", str(tmp_path / "Pulumi.web.yaml")]) == 2
    assert "missing required key 'planner:cluster'" in capsys.readouterr().err
    # globs select by file name or path
    assert (
        main(
            ["plan", str(tmp_path), "--format", "json", "--include", "Pulumi.trn2-*", "--include", "*/Pulumi.web.yaml"]
        )
        == 0
    )
    out, err = capsys.readouterr()
    assert [s["stack"] for s in json.loads(out)["stacks"]] == ["trn2-dev"] and "Pulumi.web.yaml" in err
    assert (
        main(
            ["plan", str(tmp_path), "--format", "json", "--exclude", "Pulumi.trn2-*", "--exclude", "*/Pulumi.web.yaml"]
        )
        == 0
    )
    out, err = capsys.readouterr()
    assert len(json.loads(out)["stacks"]) == 2 and "Pulumi.db.yaml" in err and "web" not in err
    # a mistyped glob is not "0 stacks, exit 0": the gate would pass on nothing
    assert main(["plan", str(tmp_path), "--include", "Pulumi.prdo-*"]) == 2
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and "<command line>: --include/--exclude: none of the 5 stack files found is selected by "
        "--include Pulumi.prdo-*"
        in err
    )
    assert main(["plan", str(tmp_path / "Pulumi.trn2-dev.yaml"), "--exclude", "*"]) == 2
    assert "none of the 1 stack file found is selected by --exclude *" in capsys.readouterr().err


def test_a_project_without_planner_cluster_suggests_program(tmp_path, capsys) -> None:
    from planner.cli import main

    _plain(tmp_path, "dev", "config:\n  aws:region: us-east-2\n")
    assert main(["plan", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no stack here declares 'planner:cluster'" in err and "--program DIR --stack NAME" in err
