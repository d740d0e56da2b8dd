"""Issue 15, item 9: the Python entry points take what the stack schema and the program say."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_workload_args_take_checkpoint_max_minutes_like_the_stack_schema(tmp_path: Path) -> None:
    from planner.components.args import ClusterArgs, WorkloadArgs
    from planner.core.input.stack_files import load_stack

    path = tmp_path / "Pulumi.w.yaml"
    path.write_text(
        """config:
  aws:region: us-east-2
  planner:cluster:
    availability_zone: us-east-2b
    node_groups:
      - {name: t, instance_type: trn2.48xlarge, count: 2, purchase: capacity-block}
    workload: {parameters: 7.0e+10, tokens: 1.0e+12, mfu: 0.4, checkpoint_max_minutes: 5}
""",
        encoding="utf-8",
    )
    args = ClusterArgs.from_model(load_stack(str(path)).cluster)
    assert args.workload == WorkloadArgs(parameters=7e10, tokens=1e12, mfu=0.4, checkpoint_max_minutes=5)
    assert args.to_config()["workload"]["checkpoint_max_minutes"] == 5


def test_check_takes_the_region_of_the_captured_program(monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.policy import testing

    seen: list[str | None] = []
    real = testing.stack_args

    def spy(specs, config=None, region="unset"):  # noqa: ANN001, ANN202 - testing.stack_args' signature
        seen.append(region)
        return real(specs, config, region)

    monkeypatch.setattr(testing, "stack_args", spy)
    specs = testing.capture(lambda: None, config={"aws:region": "us-west-2"})
    assert specs.config == {"aws:region": "us-west-2"}
    testing.check(specs)
    assert seen and set(seen) == {"us-west-2"}
    seen.clear()
    testing.check(specs, region="eu-west-1")  # given: it wins
    assert set(seen) == {"eu-west-1"}
    seen.clear()
    testing.check(list(specs))  # hand-written specs: the default region
    assert set(seen) == {testing.DEFAULT_REGION}
