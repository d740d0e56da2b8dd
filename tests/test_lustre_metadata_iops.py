"""`lustre-metadata-iops`: a metadata configuration's Metadata IOPS as the FSx API reference allows them, on a
program's file system (read back from `metadataConfiguration`) and in the policy pack's resource policy.

CreateFileSystemLustreMetadataConfiguration, as botocore ships it: Iops "(USER_PROVISIONED mode only)";
"valid values are 1500, 3000, 6000, 12000, and multiples of 12000 up to a maximum of 192000"; "If you're using
AUTOMATIC mode, you cannot specify a value". A case and a near miss each.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.test_lustre_intelligent_tiering import LUSTRE

SHAPE = "CreateFileSystemLustreMetadataConfiguration"
SENTENCES = (
    ("Iops", "(USER_PROVISIONED mode only)"),
    (
        "Iops",
        "For SSD file systems, valid values are 1500, 3000, 6000, 12000, and multiples of 12000 up to a maximum of 192000.",
    ),
    (
        "Iops",
        "For Intelligent-Tiering file systems, valid values are 1500, 3000, 6000, 12000, and multiples of 12000 up to "
        "a maximum of 192000.",
    ),
    ("Iops", "If you're using AUTOMATIC mode, you cannot specify a value"),
)
FS = {
    "deploymentType": "PERSISTENT_2",
    "storageCapacity": 2400,
    "perUnitStorageThroughput": 250,
    "subnetIds": ["subnet-00000000"],
}


@pytest.mark.parametrize("member,sentence", SENTENCES)
def test_the_quoted_sentences_are_aws_text(member: str, sentence: str) -> None:
    import botocore.session

    model = botocore.session.get_session().get_service_model("fsx")
    text = " ".join(re.sub(r"<[^>]+>", "", model.shape_for(SHAPE).members[member].documentation).split())
    assert sentence in text


def _findings(meta: dict[str, Any]) -> list[Any]:
    from planner.policy.planning import plan_resources
    from planner.policy.testing import Spec, stack_args
    from tests.test_readback_rules import cluster

    outcome = plan_resources(
        stack_args([*cluster(), Spec(LUSTRE, "fs", {**FS, "metadataConfiguration": meta})]).resources, {}
    )
    assert outcome.plan is not None, outcome.gaps
    return [f for f in outcome.plan.findings if f.rule == "lustre-metadata-iops"], outcome.plan


@pytest.mark.usefixtures("no_stack_config")
@pytest.mark.parametrize(
    "meta,message,words",
    [
        ({"mode": "USER_PROVISIONED", "iops": 2000}, "Metadata IOPS 2,000 is not a figure AWS offers", "3000"),
        ({"mode": "USER_PROVISIONED", "iops": 200000}, "200,000 is not a figure AWS offers", "192000"),
        ({"mode": "AUTOMATIC", "iops": 3000}, "given in AUTOMATIC mode", "metadata_configuration.iops"),
        # a figure from a program is quoted, never written out when it is absurd (a 300-digit number)
        ({"mode": "USER_PROVISIONED", "iops": 1e300}, "Metadata IOPS above 192,000 is not a figure", "192000"),
    ],
)
def test_a_programs_metadata_iops_aws_does_not_take_is_an_error_naming_its_property(
    meta: dict[str, Any], message: str, words: str
) -> None:
    from planner.core.input.locations import fix_text

    hits, plan = _findings(meta)
    (hit,) = hits
    assert hit.severity == "error" and message in hit.message and hit.resource
    said = fix_text(plan.stack, hit.fix)
    assert "metadata_configuration.iops" in said and words in said, said


@pytest.mark.usefixtures("no_stack_config")
@pytest.mark.parametrize(
    "meta",
    [{"mode": "USER_PROVISIONED", "iops": 3000}, {"mode": "USER_PROVISIONED", "iops": 48000}, {"mode": "AUTOMATIC"}],
)
def test_the_near_misses_are_quiet(meta: dict[str, Any]) -> None:
    hits, plan = _findings(meta)
    assert hits == []
    fs = plan.stack.cluster.lustre
    assert (fs.metadata_mode, fs.metadata_iops) == (meta["mode"], meta.get("iops"))


def test_the_packs_resource_policy_checks_the_metadata_iops() -> None:
    from planner.policy import policies
    from planner.policy.testing import Spec, resource_args, violations

    bad = Spec(LUSTRE, "bad", {**FS, "metadataConfiguration": {"mode": "USER_PROVISIONED", "iops": 2000}})
    found = violations(policies.lustre_values, resource_args(bad))
    assert [m.split("]")[0] for m, _ in found] == ["[lustre-metadata-iops"]
    fine = Spec(LUSTRE, "ok", {**FS, "metadataConfiguration": {"mode": "USER_PROVISIONED", "iops": 12000}})
    assert violations(policies.lustre_values, resource_args(fine)) == []


@pytest.mark.usefixtures("no_stack_config")
def test_a_mode_the_api_does_not_list_is_an_error_quoting_it_safely() -> None:
    """MetadataConfigurationMode is AUTOMATIC or USER_PROVISIONED (botocore's enumeration); a bidi control in a
    program's value is quoted as an escape, never written raw."""
    import botocore.session

    from planner.core.input.locations import fix_text

    model = botocore.session.get_session().get_service_model("fsx")
    assert model.shape_for(SHAPE).members["Mode"].enum == ["AUTOMATIC", "USER_PROVISIONED"]
    hits, plan = _findings({"mode": "\u202eAUTOMATIC", "iops": 3000})
    (hit,) = hits
    assert "\\u202e" in hit.message and "\u202e" not in hit.message
    assert "is not one AWS takes: AUTOMATIC or USER_PROVISIONED" in hit.message
    said = fix_text(plan.stack, hit.fix)
    assert "metadata_configuration.mode" in said and "USER_PROVISIONED" in said, said
