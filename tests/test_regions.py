"""AWS's regions and zones, as the parser checks them (planner/data/regions.yaml).

The core cannot import botocore, so the list ships as data generated from botocore's partition
data and moto's copy of AWS's zone offerings (tools/gen_regions.py); `make drift` regenerates it
from the newest botocore and moto and says what changed (tools/drift.py).
"""

from __future__ import annotations

from planner.core.input.cluster_checks import bad_zone
from planner.core.input.stack_files import unknown_region


def test_a_misspelt_region_gets_a_did_you_mean() -> None:
    assert unknown_region("us-east-2") is None
    assert unknown_region("us-east-3") == "unknown region 'us-east-3' (did you mean 'us-east-1' or 'us-east-2'?)"
    assert unknown_region("us-esat-2") == "unknown region 'us-esat-2' (did you mean 'us-east-2'?)"


def test_a_zone_given_as_a_region_is_named_as_such() -> None:
    assert unknown_region("us-east-2b") == (
        "'us-east-2b' is an Availability Zone of us-east-2, not a region: "
        "set aws:region: us-east-2 (and availability_zone: us-east-2b)"
    )
    assert unknown_region("us-east-1-dfw-2a").startswith(
        "'us-east-1-dfw-2a' is a Local Zone of us-east-1, not a region"
    )


def test_zones_are_checked_against_aws_data_local_zones_included() -> None:
    assert bad_zone("us-east-2b", "us-east-2") is None
    assert bad_zone("us-east-1-dfw-2a", "us-east-1") is None  # the Dallas Local Zone (Capacity Blocks pricing page)
    assert (
        bad_zone("us-east-2z", "us-east-2")
        == "us-east-2z is not an Availability Zone of us-east-2; AWS lists us-east-2a, us-east-2b, us-east-2c"
    )
    assert bad_zone("us-west-2a", "us-east-2").startswith("expected an Availability Zone of us-east-2")
