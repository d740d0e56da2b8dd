"""`planner plan --program DIR --stack NAME`: a Pulumi program planned offline like a stack file."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, no_plan, run_cli, run_process

PROGRAM = (ROOT / "planner" / "pulumi_program" / "__main__.py").read_text()


def project(tmp_path: Path, cluster_yaml: str, main: str = PROGRAM, stack: str = "dev") -> Path:
    d = tmp_path / "project"
    d.mkdir()
    (d / "Pulumi.yaml").write_text("name: sample\nruntime: python\nmain: app.py\nstackConfigDir: stacks\n")
    (d / "app.py").write_text(main)
    (d / "stacks").mkdir()
    body = "".join(f"    {line}\n" for line in cluster_yaml.strip().splitlines())
    (d / "stacks" / f"Pulumi.{stack}.yaml").write_text(f"config:\n  aws:region: us-east-2\n  planner:cluster:\n{body}")
    return d


def test_bundled_program_plans_like_the_stack_file() -> None:
    """Same summary, findings (file and line included) and cost: byte-identical JSON."""
    for stack in ("trn2-dev", "ultraserver-prod", "p5en-train"):
        via_program = run_cli("plan", "--program", ".", "--stack", stack, "--format", "json")
        via_file = run_cli("plan", f"stacks/Pulumi.{stack}.yaml", "--format", "json")
        assert via_program.code == via_file.code == 0, via_program.err
        assert via_program.out == via_file.out


def test_program_findings_point_at_the_stack_file_line(tmp_path: Path) -> None:
    d = project(
        tmp_path,
        """
availability_zone: us-east-2b
node_groups:
  - name: u
    instance_type: trn2u.48xlarge
    count: 6
    purchase: capacity-block
""",
    )
    # from the project's parent (a repository with its Pulumi project in a subfolder) and from elsewhere:
    # the path must lead to the stack file from where planner was started, as in SARIF and annotations
    for cwd, program, shown in (
        (tmp_path, "project", "project/stacks/Pulumi.dev.yaml"),
        (ROOT, str(d), str(d / "stacks" / "Pulumi.dev.yaml")),
    ):
        result = run_cli("plan", "--program", program, "--stack", "dev", "--format", "json", cwd=cwd)
        assert result.code == 1, result.err
        (finding,) = [
            f for s in json.loads(result.out)["stacks"] for f in s["findings"] if f["rule"] == "ultraserver-whole-units"
        ]
        assert (finding["file"], finding["line"]) == (shown, 8)


def test_python_program_is_planned() -> None:
    result = run_cli("plan", "--program", "examples/ultraserver-training", "--stack", "dev", "--format", "json")
    assert result.code == 0, result.err
    (stack,) = json.loads(result.out)["stacks"]
    assert stack["stack"] == "pretrain"
    assert stack["summary"]["ultraservers"] == 2  # from the stack's config (ultraservers: 2)


def test_error_findings_exit_1_with_the_report(tmp_path: Path) -> None:
    d = project(
        tmp_path,
        """
availability_zone: us-east-2b
node_groups:
  - {name: u, instance_type: trn2u.48xlarge, count: 6, purchase: capacity-block}
""",
    )
    result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
    assert result.code == 1
    rules = [f["rule"] for s in json.loads(result.out)["stacks"] for f in s["findings"]]
    assert "ultraserver-whole-units" in rules


def test_every_cluster_of_a_program_is_reported(tmp_path: Path) -> None:
    main = """
from planner.components import ClusterArgs, NodeGroupArgs, Trn2Cluster, UltraServerCluster
UltraServerCluster("bad", ClusterArgs(availability_zone="us-east-2b",
                   node_groups=[NodeGroupArgs(name="u", count=6, purchase="capacity-block")]))
Trn2Cluster("good", ClusterArgs(availability_zone="us-east-2b", node_groups=[NodeGroupArgs(name="t", count=2)]))
"""
    d = project(tmp_path, "availability_zone: us-east-2b", main=main)
    result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
    assert result.code == 1
    assert [s["stack"] for s in json.loads(result.out)["stacks"]] == ["bad", "good"]


def test_input_errors_exit_2_one_line_each(tmp_path: Path) -> None:
    d = project(
        tmp_path,
        """
availability_zone: us-east-2b
node_groups:
  - {name: t, instance_type: trn2.48xlarge, cout: 2}
""",
    )
    result = run_cli("plan", "--program", str(d), "--stack", "dev")
    assert result.code == 2 and no_plan(result.out)
    assert "node_groups[0].cout: unknown key (did you mean 'count'?)" in result.err
    assert all(line.startswith("planner: ") for line in result.err.splitlines())


def test_program_option_errors_name_the_command_that_was_run(tmp_path: Path) -> None:
    """`--program` with stack files, or `--stack` with several paths, is said in the name of the command
    run; `--program DIR` alone means every stack of the project, `--stack NAME` alone a stack of the
    project here."""
    for command in ("plan", "preflight", "diff"):
        res = run_cli(command, "--program", str(ROOT), "--stack", "trn2-dev", "stacks/Pulumi.trn2-dev.yaml")
        assert res.code == 2
        assert res.err.strip() == f"planner: planner {command}: PATH: give stack files or --program, not both"
    for command in ("plan", "preflight"):
        res = run_cli(command, "--program", str(tmp_path))
        assert res.code == 2 and res.err.strip() == (
            f"planner: {tmp_path}: no Pulumi.yaml in this folder (expected a Pulumi project)"
        )
        res = run_cli(command, "--stack", "dev", cwd=ROOT)
        assert res.code == 2 and res.err.startswith(
            "planner: stacks/Pulumi.dev.yaml: --stack: stack file missing: no Pulumi.dev.yaml"
        )
        res = run_cli(command, "--stack", "dev", "stacks", "examples", cwd=ROOT)
        assert res.code == 2 and res.err.strip() == (
            f"planner: planner {command}: --stack: names a stack of one Pulumi project: give no path (the project "
            "here) or the project's folder, or --program DIR"
        )


def test_unusable_program_or_options_exit_2(tmp_path: Path) -> None:
    raising = project(tmp_path, "availability_zone: us-east-2b", main="raise ValueError('boom\\nsecond line')\n")
    cases = [
        (("--program", str(tmp_path / "nowhere"), "--stack", "dev"), "no such folder"),
        (("--program", str(raising), "--stack", "dev"), "the program failed: ValueError: boom second line"),
        (("--program", str(tmp_path)), "no Pulumi.yaml in this folder (expected a Pulumi project)"),
        (("--program", str(ROOT), "--stack", "trn2-dev", "stacks"), "not both"),
        (
            ("--program", str(ROOT), "--stack", "missing"),
            "stacks/Pulumi.missing.yaml: --stack: stack file missing: no Pulumi.missing.yaml",
        ),
    ]
    for args, message in cases:
        result = run_cli("plan", *args)
        assert result.code == 2, (args, result.out, result.err)
        assert len(result.err.strip().splitlines()) == 1 and message in result.err, (args, result.err)
        assert "Traceback" not in result.err


def test_cli_process_plans_a_program_without_credentials() -> None:
    result = run_process(
        "plan",
        "--program",
        ".",
        "--stack",
        "ultraserver-prod",
        env={"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "PULUMI_ACCESS_TOKEN": ""},
    )
    assert result.code == 0, result.err
    assert "Stack ultraserver-prod" in result.out and "Traceback" not in result.err


def test_what_the_program_prints_does_not_corrupt_the_report(tmp_path: Path) -> None:
    d = project(
        tmp_path,
        """
availability_zone: us-east-2b
node_groups:
  - {name: t, instance_type: trn2.48xlarge, count: 2}
""",
        main="print('hello from the program')\n" + PROGRAM,
    )
    result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["stacks"][0]["summary"]["instances"] == 2
    assert "hello from the program" in result.err


# --- the program runs in a child process: its exit and its output stay there (issue 14, item 9) ---------

HAND_WRITTEN = """
import pulumi_aws as aws
subnet = aws.ec2.Subnet("private", vpc_id="vpc-0123456789abcdef0", cidr_block="10.0.1.0/24", availability_zone="us-east-2b")
lt = aws.ec2.LaunchTemplate("trainers", instance_type="p5en.48xlarge", image_id="ami-0123456789abcdef0",
    metadata_options={"http_tokens": "required"},
    network_interfaces=[{"network_card_index": c, "device_index": 0 if c == 0 else 1,
                         "interface_type": "efa" if c == 0 else "efa-only", "subnet_id": subnet.id} for c in range(16)])
aws.autoscaling.Group("trainers", desired_capacity=2, max_size=2, min_size=0, vpc_zone_identifiers=[subnet.id],
                      launch_template={"id": lt.id, "version": "$Latest"}, placement_group="existing-cluster-pg")
"""


def test_sys_exit_in_the_program_is_one_line_exit_2(tmp_path: Path) -> None:
    for i, ending in enumerate(
        (
            "import sys\nsys.exit(0)\n",
            "raise SystemExit(3)\n",
            "class Stop(BaseException):\n    pass\nraise Stop('halt')\n",
        )
    ):
        (tmp_path / str(i)).mkdir()
        d = project(tmp_path / str(i), "schedule: {hours: 24}", main=HAND_WRITTEN + ending)
        result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
        assert result.code == 2 and no_plan(result.out), (ending, result.out)
        assert len(result.err.strip().splitlines()) == 1 and "the program failed:" in result.err, result.err
        assert "Traceback" not in result.err


def test_os_exit_in_the_program_is_one_line_exit_2(tmp_path: Path) -> None:
    d = project(tmp_path, "schedule: {hours: 24}", main=HAND_WRITTEN + "import os\nos._exit(0)\n")
    result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
    assert result.code == 2 and no_plan(result.out)
    assert (
        result.err.strip()
        == f"planner: {d / 'app.py'}: the program ended its process (exit status 0) before planner could read what it declares"
    )


def test_a_program_that_never_finishes_is_stopped_at_the_timeout(tmp_path: Path) -> None:
    d = project(tmp_path, "schedule: {hours: 24}", main=HAND_WRITTEN + "import time\ntime.sleep(120)\n")
    # stopped, not waited for (how soon: `make bench`, bench/bounds.py)
    result = run_cli("plan", "--program", str(d), "--stack", "dev", "--program-timeout", "1", "--format", "json")
    assert result.code == 2 and no_plan(result.out)
    assert result.err.strip() == (
        f"planner: {d / 'app.py'}: --program-timeout: the program did not finish within 1 s and "
        "was stopped; raise --program-timeout if it is slow, or check what it waits for"
    )
    bad = run_cli("plan", "--program", str(d), "--stack", "dev", "--program-timeout", "0")
    assert bad.code == 2 and "expected seconds from 1 to 3600, got '0'" in bad.err


def test_the_programs_own_stdout_never_reaches_json_or_sarif(tmp_path: Path) -> None:
    noisy = (
        "import os, sys\nprint('{\"not\": \"json\"')\nos.write(1, b'raw bytes on fd 1\\n')\nsys.stdout.write('more')\n"
    )
    d = project(tmp_path, "schedule: {hours: 24}", main=noisy + HAND_WRITTEN)
    for fmt in ("json", "sarif"):
        result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", fmt)
        assert result.code in (0, 1), result.err
        json.loads(result.out)  # the whole of stdout is the report
        assert "raw bytes on fd 1" in result.err and '{"not": "json"' in result.err


def test_plain_resources_are_read_back_and_components_are_not_counted_twice(tmp_path: Path) -> None:
    """A program with a planner component and a hand-written group: the component's cluster as declared, and
    one read-back stack holding only the hand-written group (the component's own resources are left out)."""
    main = PROGRAM + HAND_WRITTEN
    d = project(
        tmp_path,
        """
availability_zone: us-east-2b
node_groups:
  - {name: t, instance_type: trn2.48xlarge, count: 2}
""",
        main=main,
    )
    result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
    assert result.code in (0, 1), result.err
    stacks = json.loads(result.out)["stacks"]
    assert [s["summary"]["instances"] for s in stacks] == [2, 2]
    assert [[g["name"] for g in s["summary"]["node_groups"]] for s in stacks] == [["t"], ["trainers"]]
    assert stacks[1]["file"] == str(d / "app.py")


def test_a_program_without_accelerated_compute_says_so_in_one_line(tmp_path: Path) -> None:
    web = "import pulumi_aws as aws\naws.ec2.Instance('web', instance_type='t3.micro', ami='ami-0123456789abcdef0')\n"
    d = project(tmp_path, "schedule: {hours: 24}", main=web)
    result = run_cli("plan", "--program", str(d), "--stack", "dev")
    assert result.code == 2 and no_plan(result.out)
    assert len(result.err.strip().splitlines()) == 1 and "declares no accelerated compute" in result.err
    # it names every kind of compute the read-back reads (HyperPod and PCS were left out), from the
    # read-back's own list, the one `rebuild` and `elastic_compute.read` dispatch on (a PCS group with static
    # instances is a node group; without, `rebuild`'s PCS reader hands it to `elastic_compute.pcs_pool`)
    from planner.readback import elastic_compute, topology

    assert topology.COMPUTE_KINDS == (
        "EC2 Auto Scaling group",
        "EKS managed node group",
        "EC2 instance",
        "AWS PCS compute node group",
        "AWS Batch compute environment",
        "Karpenter NodePool",
        "SageMaker HyperPod cluster",
    )
    assert (
        "and no EC2 Auto Scaling group, EKS managed node group, EC2 instance, AWS PCS compute node group, "
        "AWS Batch compute environment, Karpenter NodePool or SageMaker HyperPod cluster with an accelerated "
        "instance type)" in result.err
    )
    kinds = {k.name: k for k in elastic_compute.KINDS}
    assert all(kinds["SageMaker HyperPod cluster"].of(t) for t in elastic_compute.HYPERPOD_TYPES)
    assert kinds["Karpenter NodePool"].of("kubernetes:karpenter.sh/v1:NodePool")


def test_region_from_the_zones_else_one_line_asking_for_it(tmp_path: Path) -> None:
    """No `aws:region`: the subnet's `us-east-2b` gives us-east-2; with no AZ either, one line names the key to set."""
    for i, (main, expected) in enumerate(
        ((HAND_WRITTEN, "us-east-2"), (HAND_WRITTEN.replace(', availability_zone="us-east-2b"', ""), None))
    ):
        (tmp_path / str(i)).mkdir()
        d = project(tmp_path / str(i), "schedule: {hours: 24}", main=main)
        (d / "stacks" / "Pulumi.dev.yaml").write_text("config: {}\n")
        result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
        if expected:
            assert result.code in (0, 1) and json.loads(result.out)["stacks"][0]["region"] == expected, result.err
        else:
            assert result.code == 2 and no_plan(result.out)
            assert result.err.strip().endswith(
                "aws:region: cannot tell the AWS region of the program's resources: "
                "set `aws:region` in Pulumi.dev.yaml (or give a subnet an AZ)"
            )


def test_collect_leaves_the_origin_of_shown_paths_as_it_was() -> None:
    """`collect` shows paths relative to its `origin` only while the program runs: a later
    in-process run (a test, tools.doc_examples) shows its paths relative to its own folder."""
    from planner.runtime import offline_run as programs

    before = programs._ORIGIN
    programs.collect(str(ROOT / "tests" / "corpus" / "eks-p5-capacity-block-unmanaged"), "test", "/")
    assert programs._ORIGIN == before


def _planned(tmp_path: Path, cluster_yaml: str):  # noqa: ANN202 - the CLI result
    d = project(tmp_path, cluster_yaml, main=HAND_WRITTEN)
    return d, run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")


def test_planning_keys_in_the_stack_config_apply_to_the_read_back(tmp_path: Path) -> None:
    """schedule and budget in the program's stack config: the read-back has a total, the budget is checked
    and its finding points at the stack file's line."""
    d, result = _planned(tmp_path, "schedule: {hours: 336}\nbudget:\n  total_usd: 1000\n  allow_incomplete: true\n")
    assert result.code == 1, result.err
    (stack,) = json.loads(result.out)["stacks"]
    cost = stack["cost"]
    assert cost["hours_basis"] == "schedule.hours" and cost["run_hours"] == 336
    (f,) = [f for f in stack["findings"] if f["rule"] == "budget-exceeded"]
    assert f["file"] == str(d / "stacks" / "Pulumi.dev.yaml") and f["line"] == 6 and "resource" not in f


def test_planning_suppressions_hold_for_the_read_back(tmp_path: Path) -> None:
    _, result = _planned(
        tmp_path,
        "schedule: {hours: 24}\nbudget: {total_usd: 1}\n"
        "suppress:\n  - {rule: budget-exceeded, reason: approved}\n"
        "  - {rule: budget-incomplete-cost, reason: approved}\n",
    )
    (stack,) = json.loads(result.out)["stacks"]
    assert all(f["suppressed"] for f in stack["findings"] if f["rule"].startswith("budget-")), stack["findings"]


def test_a_topology_key_with_a_program_is_a_one_line_error(tmp_path: Path) -> None:
    d, result = _planned(
        tmp_path, "schedule: {hours: 24}\nnode_groups:\n  - {name: x, instance_type: p5.48xlarge, count: 1}\n"
    )
    assert result.code == 2 and no_plan(result.out)
    (line,) = result.err.strip().splitlines()
    assert line.startswith(
        f"planner: {d / 'stacks' / 'Pulumi.dev.yaml'}:5: planner:cluster.node_groups: cannot apply "
        "to a program's cluster: its resources declare the topology"
    )


def test_a_bad_planning_value_or_unknown_key_names_its_line(tmp_path: Path) -> None:
    for i, (text, expected) in enumerate(
        (
            ("schedule: {hours: 0}\n", ":4: planner:cluster.schedule.hours: expected a positive number, got 0"),
            ("schedul: {hours: 24}\n", ":4: planner:cluster.schedul: unknown key (did you mean 'schedule'?)"),
            (
                "suppress:\n  - {rule: budget-exeeded, reason: x}\n",
                ":5: planner:cluster.suppress[0].rule: unknown rule 'budget-exeeded'",
            ),
        )
    ):
        (tmp_path / str(i)).mkdir()
        d, result = _planned(tmp_path / str(i), text)
        assert result.code == 2 and no_plan(result.out), result.err
        (line,) = result.err.strip().splitlines()
        assert expected in line, line


def test_a_failing_program_shows_its_own_file_and_line(tmp_path: Path) -> None:
    """The last frame inside the program (here a helper module it imports), not pulumi's or planner's."""
    main = HAND_WRITTEN + "import helpers\nhelpers.size('big')\n"
    d = project(tmp_path, "schedule: {hours: 24}", main=main)
    (d / "helpers.py").write_text("def size(text):\n    return int(text)\n", encoding="utf-8")
    result = run_cli("plan", "--program", str(d), "--stack", "dev")
    assert result.code == 2 and no_plan(result.out)
    (line,) = result.err.strip().splitlines()
    assert line.startswith(
        f"planner: {d / 'helpers.py'}:2: the program failed: ValueError: invalid literal for int()"
    ), line
