"""`planner capacity` on a Pulumi program (issue 34, item 1): a stack config whose `planner:cluster`
holds only planning keys is the program's config for `capacity` too, never an incomplete stack file.
The program's cluster is searched for, as `planner plan` plans it with no flag; where capacity cannot
choose (several stacks), one line names the project and how to choose, exit 2.

The repository is built here, as in tests/test_program_default.py: a new git repository holding a
small hand-written pulumi_aws program, run offline under Pulumi's mocks (no Pulumi CLI, no network,
no credentials); EC2's answers come from botocore's Stubber, as in tests/test_capacity.py.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.test_capacity import answers, expect, offering, run
from tests.test_capacity import aws as aws  # the fixture: stubbed EC2 clients
from tests.test_preflight_helpers import StubbedAws
from tests.test_program_default import PROGRAM, STACK_CONFIG, program_repo

pytestmark = pytest.mark.usefixtures("isolated_aws")

# the test program's group, bought as a Capacity Block: the launch template's market type (EC2 user guide,
# "Use Capacity Blocks": MarketType capacity-block)
BLOCK_PROGRAM = PROGRAM.replace(
    '    metadata_options={"http_tokens": "required"},\n',
    '    metadata_options={"http_tokens": "required"},\n    instance_market_options={"market_type": "capacity-block"},\n',
)


def block_repo(tmp_path: Path, folder: str = "") -> Path:
    repo = program_repo(tmp_path, folder)
    main = (repo / folder if folder else repo) / "__main__.py"
    main.write_text(BLOCK_PROGRAM, encoding="utf-8")
    assert main.read_text(encoding="utf-8") != PROGRAM
    return repo


def two_offerings(aws: StubbedAws) -> None:
    """us-east-2 sells a 72-hour block of 2 p5en.48xlarge (the program's count) for the stack config's 48
    hours (a 48-hour block is too short: instances stop 30 minutes before its end)."""
    expect(aws, "us-east-2", 48, answers(), count=2)
    expect(
        aws,
        "us-east-2",
        72,
        answers(
            offering(
                "cb-0e2b000000000002b", "us-east-2b", "2026-12-20T11:30:00", "2026-12-23T11:30:00", "18000.00", count=2
            )
        ),
        count=2,
    )


def capacity(capsys: pytest.CaptureFixture[str], cwd: Path, *argv: str) -> tuple[int, Any, str]:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return run(capsys, *argv)
    finally:
        os.chdir(old)


@pytest.mark.parametrize(
    "argv",
    [
        ("infra/Pulumi.dev.yaml",),  # the stack config named, as for a stack file
        ("infra",),  # the project's folder
        ("--program", "infra", "--stack", "dev"),
    ],
)
def test_a_programs_stack_config_means_the_programs_cluster(
    aws: StubbedAws, capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: tuple[str, ...]
) -> None:
    repo = block_repo(tmp_path, "infra")
    two_offerings(aws)
    code, doc, err = capacity(capsys, repo, *argv, "--format", "json")
    assert code == 0, err
    assert "missing required key" not in err
    # the group the program declares (the Auto Scaling group "trainers"), its count, the config's hours
    assert doc["node_group"] == "trainers" and doc["source"] == "infra/__main__.py"
    (need,) = doc["needs"]
    assert (need["instance_type"], need["instances"], need["run_hours"], need["hours_basis"]) == (
        "p5en.48xlarge",
        2,
        48.0,
        "schedule.hours",
    )
    assert doc["pick"]["offering_ids"] == ["cb-0e2b000000000002b"]
    # what to set next, in the program's terms: the resources and properties it declares
    keys = doc["next"]["stack_keys"]
    # (edits of the stack's model, said as a finding's fix is: planner.readback.program_terms)
    assert keys == [
        'set `instance_market_options.market_type` of aws.ec2.LaunchTemplate "trainer" (infra/__main__.py:8) to '
        '"capacity-block"',
        'launch aws.autoscaling.Group "trainers" (infra/__main__.py:15) into a subnet of "us-east-2b" '
        "(`vpc_zone_identifiers`)",
        "set `capacity_reservation_specification.capacity_reservation_target.capacity_reservation_id` of the launch "
        'template of aws.autoscaling.Group "trainers" (infra/__main__.py:15) to "cr-..." '
        "(CapacityReservation.CapacityReservationId that the purchase prints)",
        # the stack config's own key: the block's 72 hours
        "in the stack config's planner:cluster, set schedule.hours: 72",
    ]
    assert doc["next"]["program"] == "infra/__main__.py"
    # the table heads them with the program, never "in the stack"
    two_offerings(aws)
    code, table, err = capacity(capsys, repo, *argv)
    assert code == 0, err
    assert isinstance(table, str)
    assert "Then set in the program (infra/__main__.py):" in table and "Then set in the stack:" not in table


def test_with_no_path_the_project_here_is_searched(aws: StubbedAws, capsys, tmp_path: Path) -> None:
    repo = block_repo(tmp_path)
    two_offerings(aws)
    code, doc, err = capacity(capsys, repo, "--format", "json")
    assert code == 0, err
    assert doc["node_group"] == "trainers" and doc["source"] == "__main__.py"


def test_several_stacks_are_one_line_naming_the_project_and_how_to_choose(
    aws: StubbedAws, capsys, tmp_path: Path
) -> None:
    repo = block_repo(tmp_path)
    (repo / "Pulumi.prod.yaml").write_text(STACK_CONFIG.replace("hours: 48", "hours: 96"), encoding="utf-8")
    code, _, err = capacity(capsys, repo)
    assert code == 2 and "Traceback" not in err
    (line,) = err.splitlines()
    assert line == (
        "planner: the Pulumi project here: STACK_FILE: capacity searches for one cluster, and the Pulumi project "
        "here has 2 (dev (__main__.py), prod (__main__.py)); expected --stack NAME (one stack of the project)"
    )
    two_offerings(aws)
    code, doc, err = capacity(capsys, repo, "--stack", "dev", "--format", "json")
    assert code == 0 and doc["needs"][0]["run_hours"] == 48.0, err


def test_no_programs_refuses_in_one_line(capsys, tmp_path: Path) -> None:
    repo = block_repo(tmp_path)
    code, _, err = capacity(capsys, repo, "Pulumi.dev.yaml", "--no-programs")
    assert code == 2
    (line,) = err.splitlines()
    assert line.startswith(
        "planner: Pulumi.dev.yaml:3: planner:cluster: is the stack config of the Pulumi program of Pulumi.yaml "
        "(stack dev): planning it runs the program's code, which --no-programs refuses"
    )


def test_planning_keys_without_a_program_are_one_line_not_an_incomplete_stack_file(capsys, tmp_path: Path) -> None:
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "Pulumi.dev.yaml").write_text(STACK_CONFIG, encoding="utf-8")
    code, _, err = capacity(capsys, tmp_path, "lone/Pulumi.dev.yaml")
    assert code == 2 and "missing required key" not in err
    (line,) = err.splitlines()
    assert line.startswith(
        "planner: lone/Pulumi.dev.yaml:3: planner:cluster: holds only planning keys (schedule, budget), the stack "
        "config of a Pulumi program, but no Pulumi project here names one"
    )
