"""Test Pulumi programs against moto: `MotoMocks`, `deploy` (a whole program), `run` (any code).

    from moto import mock_aws
    from planner.testing import deploy

    with mock_aws():
        mocks = deploy("path/to/project", "dev")       # runs the program named in Pulumi.yaml
        ec2 = boto3.client("ec2", region_name=mocks.region)
        ...                                             # assert on what the AWS APIs return

    with mock_aws():
        mocks = run(lambda: UltraServerCluster("train", args), MotoMocks("us-east-2"))

Needs the `test` extra (moto). See `planner.testing.mocks` for what is created in moto and
what is only recorded.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from planner.testing.mocks import MotoMocks, Registered


def deploy(directory: str, stack: str, region: str | None = None) -> MotoMocks:
    """Run the Pulumi program in `directory` for `stack` into the active moto account.

    The region defaults to the stack's `aws:region`. Call inside `moto.mock_aws()`; the
    returned mocks list every registered resource. Raises what the program raises.
    """
    from planner.runtime import offline_run as programs

    program = programs.load(directory)
    mocks = MotoMocks(region or program.config(stack).get("aws:region") or "us-east-1")
    programs.run(program, stack, mocks)
    return mocks


def run(
    declare: Callable[[], Any], mocks: MotoMocks, config: dict[str, Any] | None = None, stack: str = "test"
) -> MotoMocks:
    """Call `declare` (code creating resources, such as a component) against `mocks`.

    `config` maps `namespace:key` to values (objects are passed as JSON, as Pulumi does);
    `aws:region` defaults to the mocks' region. Waits for every registration; raises what
    `declare` raises.
    """
    from planner.runtime.offline_run import run_with_mocks

    values = {"aws:region": mocks.region, **(config or {})}
    strings = {k: v if isinstance(v, str) else json.dumps(v) for k, v in values.items()}
    run_with_mocks(declare, mocks, strings, project="test", stack=stack)
    return mocks


__all__ = ["MotoMocks", "Registered", "deploy", "run"]
