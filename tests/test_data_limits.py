"""AWS limits are data (planner/data/aws-limits.yaml) loaded through `planner.core.catalogue.shipped_data`; the code
and the rule texts take their figures from the loaded values, never a second copy."""

from __future__ import annotations

import re
from pathlib import Path

from planner.core import rules
from planner.core.catalogue import capacity_block_limits as blocks
from planner.core.catalogue import shipped_data as data

ROOT = Path(__file__).resolve().parent.parent


def test_limits_are_typed_and_sourced() -> None:
    lim = data.limits()
    cb = lim.capacity_blocks
    # EC2 User Guide, "Capacity Blocks for ML": "in 1-day increments up to 14 days, and in 7-day increments
    # up to 182 days"; 64 instances a block, 256 across blocks by default
    assert (cb.daily_steps_up_to_days, cb.weekly_step_days, cb.max_days) == (14, 7, 182)
    assert (cb.max_instances_per_block, cb.max_instances_per_account) == (64, 256)
    assert cb.source == "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html"
    # the P5 page: "deployed in EC2 UltraClusters ... up to 20,000 H100 GPUs"
    assert lim.ultraclusters["H100"].accelerators == 20_000
    assert lim.ultraclusters["H100"].source == "https://aws.amazon.com/ec2/instance-types/p5/"


def test_blocks_and_rule_texts_come_from_the_loaded_values() -> None:
    cb = data.limits().capacity_blocks
    assert blocks.MAX_INSTANCES_PER_BLOCK == cb.max_instances_per_block
    assert blocks.bookable_hours()[-1] == cb.max_days * 24
    reg = rules.registry()
    assert f"at most {cb.max_instances_per_block} instances" in reg["capacity-block-size"].description
    assert f"{cb.weekly_step_days}-day steps to {cb.max_days} days" in reg["capacity-block-duration"].description
    assert f"then 504, 672, ... {cb.max_days * 24}" in reg["capacity-block-duration"].remediation
    assert "H100: 20,000, P5 page" in reg["ultracluster-scale"].description


def test_no_limit_is_written_twice_in_the_code() -> None:
    for rel in (
        "planner/core/catalogue/capacity_block_limits.py",
        "planner/core/rules/scale.py",
        "planner/core/rules/capacity_blocks.py",
    ):
        code = (ROOT / rel).read_text(encoding="utf-8")
        for figure in ("20_000", "20,000", "182", "4368", "256"):
            assert not re.search(rf"(?<![\w.]){re.escape(figure)}(?![\w])", code), (
                f"{rel} writes {figure}: read it from data"
            )


def test_every_data_file_is_read_through_the_data_package() -> None:
    from planner.core.reading import yaml_lines as yamlload

    readers = {Path(yamlload.__file__).resolve(), Path(data.__file__).resolve()}  # wherever they live
    for path in (ROOT / "planner").rglob("*.py"):
        if path.resolve() in readers:
            continue
        assert "load_data(" not in path.read_text(encoding="utf-8"), (
            f"{path}: read shipped data through planner.core.catalogue.shipped_data"
        )


def test_shipped_data_reads_the_same_through_the_fast_path() -> None:
    """`load_data` skips the guards and line bookkeeping of user files (for start-up time);
    every shipped file must still read exactly as the guarded `load` reads it."""
    import glob
    import os

    from planner.core.reading import yaml_lines as yamlload

    files = sorted(glob.glob(os.path.join(yamlload.DATA_DIR, "**", "*.yaml"), recursive=True))
    assert len(files) >= 8
    for path in files:
        rel = os.path.relpath(path, yamlload.DATA_DIR)
        with open(path, encoding="utf-8") as fh:
            guarded, _ = yamlload.load(fh.read(), rel)
        assert yamlload.load_data(rel)[0] == guarded, rel
