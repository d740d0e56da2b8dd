"""The policy pack's suppressions of one resource, with a reason: the resource's `planner:suppress:<rule>`
tag, or a `{rule, resource, reason}` entry in a policy's `suppress` config. A suppressed finding is no
violation; a policy left with nothing to report says it is not applicable, giving each reason
(CrossGuard's `not_applicable`), and the pack's planning document holds the finding as suppressed."""

from __future__ import annotations

from typing import Any

import pytest

from planner.policy import policies
from planner.policy.planning import document, plan_resources
from planner.policy.testing import Reported, Spec, check, resource_args, stack_args, violations
from tests.test_policy_pack import ASG, LT, by_name, hand_written

WHY_LUSTRE = "datasets stream from S3; checkpoints go to the training framework's own store"


@pytest.fixture(autouse=True)
def no_stack_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pack reads the stack's planner:cluster config; other tests' Pulumi config must not leak in."""
    import pulumi.runtime

    monkeypatch.setattr(pulumi.runtime, "get_config", lambda key: None)


def _tagged(specs: list[Spec], type_: str, tags: Any) -> list[Spec]:
    spec = by_name(specs, type_)
    spec.props["tags"] = tags
    return specs


def _ultraservers(desired: int = 8) -> list[Spec]:
    """Two UltraServers without FSx for Lustre: one error (ultraserver-requires-lustre) on the Auto Scaling group."""
    return hand_written(instance_type="trn2u.48xlarge", desired=desired)


def test_a_tag_suppresses_the_finding_on_its_resource_with_the_reason() -> None:
    specs = _tagged(
        _ultraservers(),
        ASG,
        [{"key": "planner:suppress:ultraserver-requires-lustre", "value": WHY_LUSTRE, "propagateAtLaunch": False}],
    )
    asg = by_name(specs, ASG)
    said: list[str] = []
    assert violations(policies.topology, stack_args(specs), said) == []
    assert said == [
        f"suppressed: [ultraserver-requires-lustre] on 'trainers' (aws:autoscaling/group:Group): {WHY_LUSTRE}"
    ]
    # the pack's planning: the finding stays, suppressed in the source (the tag), with its reason
    outcome = plan_resources(stack_args(specs).resources, {})
    assert outcome.plan is not None
    (finding,) = [f for f in document(outcome.plan).stacks[0].findings if f.rule == "ultraserver-requires-lustre"]
    assert finding.resource == asg.urn
    assert finding.suppression is not None and (finding.suppression.kind, finding.suppression.reason) == (
        "inSource",
        WHY_LUSTRE,
    )
    # without the tag: the violation, and nothing said as not applicable
    plain: list[str] = []
    assert [u for _, u in violations(policies.topology, stack_args(_ultraservers()), plain)] == [asg.urn]
    assert plain == []


def test_the_policy_config_suppresses_a_rule_on_one_resource_by_name_or_urn() -> None:
    """`{rule, resource, reason}` in a policy's `suppress`; only that resource's findings, kind external.
    Something else still reported: the policy is not said to be not applicable."""
    # on the group: ultraserver-purchase and ultraserver-whole-units; on the launch template: price-unknown (no
    # on-demand price for trn2u.48xlarge, the book says why)
    specs = _ultraservers(desired=6)
    asg = by_name(specs, ASG)
    for resource in ("trainers", asg.urn):
        entry = {"rule": "ultraserver-whole-units", "resource": resource, "reason": "the sixth and seventh are spares"}
        said: list[str] = []
        found = violations(policies.topology_warnings, stack_args(specs, config={"suppress": [entry]}), said)
        assert [m.split("]")[0] for m, _ in found] == ["[price-unknown", "[ultraserver-purchase"] and said == []
        outcome = plan_resources(stack_args(specs).resources, {"suppress": [entry]})
        assert outcome.plan is not None
        (f,) = [f for f in document(outcome.plan).stacks[0].findings if f.rule == "ultraserver-whole-units"]
        assert f.suppression is not None and (f.suppression.kind, f.suppression.reason) == (
            "external",
            "the sixth and seventh are spares",
        )
    # another resource's name suppresses nothing on the group
    other = {"rule": "ultraserver-whole-units", "resource": "private-us-east-2b", "reason": "not this one"}
    found = violations(policies.topology_warnings, stack_args(specs, config={"suppress": [other]}))
    assert any(m.startswith("[ultraserver-whole-units]") for m, _ in found)


def test_the_checks_config_and_the_pack_runner_say_what_is_not_applicable() -> None:
    """`planner.policy.testing.check(..., not_applicable=...)`: what `pulumi preview` would record."""
    entry = {"rule": "ultraserver-requires-lustre", "resource": "trainers", "reason": WHY_LUSTRE}
    said: list[Reported] = []
    reported = check(
        _ultraservers(), [policies.topology], config={"planner-topology": {"suppress": [entry]}}, not_applicable=said
    )
    assert reported == []
    assert said == [
        Reported(
            "planner-topology",
            "not-applicable",
            f"suppressed: [ultraserver-requires-lustre] on 'trainers' (aws:autoscaling/group:Group): {WHY_LUSTRE}",
            None,
        )
    ]


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        (
            {"rule": "ultraserver-requires-lustre", "resource": "trainers"},
            "policy config `suppress[0]`.reason: a suppression needs a reason; expected why "
            "'ultraserver-requires-lustre' does not apply to trainers",
        ),
        (
            {"rule": "ultraserver-requires-lustre", "resource": "trainers", "reason": "  "},
            "policy config `suppress[0]`.reason: a suppression needs a reason",
        ),
        (
            {"rule": "ultraserver-requires-lustr", "resource": "trainers", "reason": "r"},
            "policy config `suppress[0]`.rule: unknown rule 'ultraserver-requires-lustr' (did you mean "
            "'ultraserver-requires-lustre'?)",
        ),
        (
            {"rule": "ultraserver-requires-lustre", "resource": "trainer", "reason": "r"},
            "policy config `suppress[0]`.resource: no resource of the stack is named 'trainer'; expected a name or a URN",
        ),
        (
            {"rule": "ultraserver-requires-lustre", "resource": "trainers", "reason": "r", "until": "May"},
            "policy config `suppress[0]`: unknown key `until`; expected only rule, resource, reason",
        ),
    ],
)
def test_an_unusable_config_entry_is_a_violation(entry: dict[str, Any], said: str) -> None:
    found = violations(policies.topology, stack_args(_ultraservers(), config={"suppress": [entry]}))
    messages = [m for m, _ in found]
    assert any(m.startswith(said) for m in messages), messages
    # and it suppresses nothing
    assert any(m.startswith("[ultraserver-requires-lustre]") for m in messages)


def test_a_tag_without_a_reason_or_rule_stops_the_planning_on_its_resource() -> None:
    """As `planner plan --program` exits 2: the topology policy reports the tag on its resource, and the
    cluster is not planned (the budget cannot be shown either)."""
    for tag, said in (
        (
            {"planner:suppress:ultraserver-requires-lustre": ""},
            "tag planner:suppress:ultraserver-requires-lustre: a suppression needs a reason; expected why "
            "'ultraserver-requires-lustre' does not apply to this resource, as the tag's value",
        ),
        ({"planner:suppress": "ultraserver-requires-lustre: r"}, "tag planner:suppress: names no rule"),
    ):
        specs = _tagged(_ultraservers(), LT, tag)
        lt = by_name(specs, LT)
        found = violations(policies.topology, stack_args(specs))
        assert [u for _, u in found] == [lt.urn] and found[0][0].startswith(said), found


def test_resource_policies_take_the_tag_and_the_config_entry() -> None:
    lt = by_name(hand_written(), LT)
    optional = Spec(LT, "v1", dict(lt.props, metadataOptions={"httpTokens": "optional"}))
    assert violations(policies.imdsv2, resource_args(optional))  # reported without a suppression
    tagged = Spec(LT, "v1", dict(optional.props, tags={"planner:suppress:imdsv2-required": "the AMI enforces IMDSv2"}))
    said: list[str] = []
    assert violations(policies.imdsv2, resource_args(tagged), said) == []
    assert said == [
        "suppressed: [imdsv2-required] on 'v1' (aws:ec2/launchTemplate:LaunchTemplate): the AMI enforces IMDSv2"
    ]
    entry = {"rule": "imdsv2-required", "resource": "v1", "reason": "the AMI enforces IMDSv2"}
    said = []
    assert violations(policies.imdsv2, resource_args(optional, {"suppress": [entry]}), said) == []
    assert said and said[0].endswith(": the AMI enforces IMDSv2")
    # naming another resource: reported as before; an entry without a reason: said beside it, suppressing nothing
    other = dict(entry, resource="v2")
    assert violations(policies.imdsv2, resource_args(optional, {"suppress": [other]}))
    found = violations(policies.imdsv2, resource_args(optional, {"suppress": [dict(entry, reason="")]}))
    assert [m.split(":")[0] for m, _ in found] == [
        "policy config `suppress[0]`.reason",
        "[imdsv2-required] metadataOptions.httpTokens is 'optional'",
    ]


def test_the_efa_security_group_policy_takes_the_groups_tag() -> None:
    from tests.test_policy_pack import self_sg

    sg = self_sg(egress_self=False)
    specs = hand_written(sg=sg)
    assert [u for _, u in violations(policies.efa_security_group, stack_args(specs))] == [sg.urn]
    sg.props["tags"] = {"planner:suppress:efa-security-group": "egress is opened by the platform's own rule"}
    said: list[str] = []
    assert violations(policies.efa_security_group, stack_args(specs), said) == []
    assert said == [
        "suppressed: [efa-security-group] on 'efa' (aws:ec2/securityGroup:SecurityGroup): "
        "egress is opened by the platform's own rule"
    ]


def test_the_budget_says_a_suppress_entry_of_its_config_cannot_be_used() -> None:
    """Like the topology policies: a misspelt rule or an entry without a reason would suppress nothing, silently."""
    config = {
        "maxTotalUsd": 1,
        "hours": 24,
        "allowIncompleteCost": True,
        "suppress": ["budget-exceded", {"rule": "budget-exceeded", "resource": "trainers"}],
    }
    # p5en.48xlarge: a shipped on-demand price, so the priced part is over the limit
    found = [m for m, _ in violations(policies.budget, stack_args(hand_written("p5en.48xlarge"), config=config))]
    assert found[:2] == [
        "policy config `suppress` names unknown rule 'budget-exceded'; `planner rules` lists the rule ids",
        "policy config `suppress[1]`.reason: a suppression needs a reason; expected why 'budget-exceeded' does not "
        "apply to trainers",
    ]
    assert any(m.startswith("[budget-exceeded]") for m in found[2:])
