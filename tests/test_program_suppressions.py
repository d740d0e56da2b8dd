"""Suppressions on one resource of a Pulumi program (`planner plan --program`): a `planner:suppress:<rule>`
tag, or a `# planner: ignore[<rule>] <reason>` comment on the resource's declaration. Each suppresses the
findings reported on that resource, shows its reason in every format, and needs one (docs/rules.md)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import every_format, no_plan, run_cli

from tests.test_program_plan import project

LT = "urn:pulumi:dev::sample::aws:ec2/launchTemplate:LaunchTemplate::trainers"
ASG = "urn:pulumi:dev::sample::aws:autoscaling/group:Group::trainers"
OTHER = "urn:pulumi:dev::sample::aws:autoscaling/group:Group::evals"

# two Auto Scaling groups in a placement group the program does not declare (a readback-gap warning on
# each), launched from a template whose IMDSv2 is optional (imdsv2-required, a warning on the template)
PROGRAM = """\
import pulumi_aws as aws
subnet = aws.ec2.Subnet("private", vpc_id="vpc-0123456789abcdef0", cidr_block="10.0.1.0/24", availability_zone="us-east-2b")
lt = aws.ec2.LaunchTemplate(
    "trainers",
    instance_type="p5en.48xlarge",
    image_id="ami-0123456789abcdef0",
    metadata_options={"http_tokens": "optional"},
    network_interfaces=[{"network_card_index": c, "device_index": 0 if c == 0 else 1,
                         "interface_type": "efa" if c == 0 else "efa-only", "subnet_id": subnet.id} for c in range(16)],
    TAGS
)
COMMENT
aws.autoscaling.Group("trainers", desired_capacity=2, max_size=2, min_size=0, vpc_zone_identifiers=[subnet.id],
                      launch_template={"id": lt.id, "version": "$Latest"}, placement_group="existing-cluster-pg",
                      ASG_TAGS)
aws.autoscaling.Group("evals", desired_capacity=1, max_size=1, min_size=0, vpc_zone_identifiers=[subnet.id],
                      launch_template={"id": lt.id, "version": "$Latest"}, placement_group="existing-cluster-pg")
"""
IMDS_TAG = 'tags={"Team": "ml", "planner:suppress:imdsv2-required": "the AMI refuses IMDSv1 itself"},'
GAP_COMMENT = "# planner: ignore[readback-gap] the platform team owns the placement group"
GAP_TAG = 'tags=[{"key": "planner:suppress:readback-gap", "value": "shared group", "propagate_at_launch": False}]'


def _program(tmp_path: Path, tags: str = "", comment: str = "", asg_tags: str = "") -> Path:
    main = PROGRAM.replace("    TAGS\n", f"    {tags}\n" if tags else "").replace(
        "COMMENT\n", f"{comment}\n" if comment else ""
    )
    main = main.replace(
        ",\n                      ASG_TAGS)", f",\n                      {asg_tags})" if asg_tags else ")"
    )
    return project(tmp_path, "schedule: {hours: 24}", main=main)


def _findings(out: str) -> dict[tuple[str, str], dict[str, object]]:
    return {(f["rule"], f.get("resource")): f for s in json.loads(out)["stacks"] for f in s["findings"]}


def test_a_tag_and_a_comment_suppress_their_resources_findings_with_the_reason(tmp_path: Path) -> None:
    """The template's tag suppresses its imdsv2-required; the comment above `trainers` its readback-gap;
    `evals`, in the same placement group without either, keeps its own: nothing else is suppressed."""
    d = _program(tmp_path, tags=IMDS_TAG, comment=GAP_COMMENT)
    result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
    assert result.code == 0, result.err
    found = _findings(result.out)
    assert found[("imdsv2-required", LT)]["suppression"] == {
        "kind": "inSource",
        "reason": "the AMI refuses IMDSv1 itself",
    }
    assert found[("readback-gap", ASG)]["suppression"] == {
        "kind": "inSource",
        "reason": "the platform team owns the placement group",
    }
    assert found[("readback-gap", ASG)]["line"] == 13  # the declaration's line, below the comment
    assert found[("readback-gap", OTHER)]["suppressed"] is False
    assert "unused_suppressions" not in json.loads(result.out)["stacks"][0]


def test_a_comment_on_the_declaration_line_and_the_list_form_of_tags(tmp_path: Path) -> None:
    """`# planner: ignore[...]` at the end of the line that declares the resource; an Auto Scaling group's
    `tags` list of {key, value}; several rules in one comment."""
    d = _program(tmp_path, tags='tags={"Team": "ml"},', asg_tags=GAP_TAG)
    text = (d / "app.py").read_text(encoding="utf-8")
    text = text.replace(
        "lt = aws.ec2.LaunchTemplate(",
        "lt = aws.ec2.LaunchTemplate(  # planner: ignore[imdsv2-required, efa-recommended]: set in the AMI",
    )
    (d / "app.py").write_text(text, encoding="utf-8")
    result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
    assert result.code == 0, result.err
    found = _findings(result.out)
    assert found[("imdsv2-required", LT)]["suppression"] == {"kind": "inSource", "reason": "set in the AMI"}
    assert found[("readback-gap", ASG)]["suppression"] == {"kind": "inSource", "reason": "shared group"}
    assert found[("readback-gap", OTHER)]["suppressed"] is False
    # efa-recommended does not fire on the template: that part of the comment is an unused suppression, at its line
    (unused,) = json.loads(result.out)["stacks"][0]["unused_suppressions"]
    assert (unused["rule"], unused["kind"], unused["file"], unused["line"]) == (
        "efa-recommended",
        "inSource",
        str(d / "app.py"),
        3,
    )


def test_suppressed_on_its_resource_in_every_format(tmp_path: Path) -> None:
    d = _program(tmp_path, tags=IMDS_TAG, comment=GAP_COMMENT)
    out = every_format("plan", "--program", str(d), "--stack", "dev", tmp=tmp_path)
    table = " ".join(out["table"].out.split())
    assert "suppressed imdsv2-required" in table and "reason: the AMI refuses IMDSv1 itself" in table
    assert "reason: the platform team owns the placement group" in table
    assert "*(suppressed: the AMI refuses IMDSv1 itself)*" in out["markdown"].out
    results = json.loads(out["sarif"].out)["runs"][0]["results"]
    (imds,) = [r for r in results if r["ruleId"] == "imdsv2-required"]
    assert imds["suppressions"] == [{"kind": "inSource", "justification": "the AMI refuses IMDSv1 itself"}]
    assert imds["locations"][0]["logicalLocations"] == [{"fullyQualifiedName": LT, "kind": "resource"}]
    assert any(
        line.startswith("::notice ") and "title=imdsv2-required (suppressed)" in line
        for line in out["github"].out.splitlines()
    )


def test_a_suppression_without_a_reason_or_a_rule_is_one_line_exit_2(tmp_path: Path) -> None:
    cases = [
        (
            {"tags": IMDS_TAG.replace("the AMI refuses IMDSv1 itself", " ")},
            ":3: tag planner:suppress:imdsv2-required: a suppression needs a reason; expected why "
            "'imdsv2-required' does not apply to this resource, as the tag's value",
        ),
        (
            {"comment": "# planner: ignore[readback-gap]"},
            ":11: # planner: ignore[readback-gap]: a suppression needs a reason; expected why 'readback-gap' "
            "does not apply to this resource, after the brackets",
        ),
        (
            {"comment": "# planner: ignore[readback-gapp] shared"},
            ":11: # planner: ignore[readback-gapp] shared: unknown rule 'readback-gapp' (did you mean 'readback-gap'?)",
        ),
        (
            {"comment": "# planner: ignore readback-gap, it is shared"},
            ":11: # planner: ignore readback-gap, it is shared: expected `# planner: ignore[<rule-id>] <reason>`",
        ),
        (
            {"tags": 'tags={"planner:suppress": "imdsv2-required: set in the AMI"},'},
            ":3: tag planner:suppress: names no rule; expected one tag per rule, `planner:suppress:<rule-id>`",
        ),
    ]
    for i, (kwargs, said) in enumerate(cases):
        (tmp_path / str(i)).mkdir()
        d = _program(tmp_path / str(i), **kwargs)
        result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
        assert result.code == 2 and no_plan(result.out), result.err
        (line,) = result.err.strip().splitlines()
        assert line.startswith(f"planner: {d / 'app.py'}{said}"), line
        assert "Traceback" not in result.err


def test_a_program_baseline_survives_line_moves(tmp_path: Path) -> None:
    """Keyed by the resource's URN and the model path, not the line: lines added above every resource
    keep the program's findings baselined; a finding that goes away is fixed."""
    d = _program(tmp_path)
    made = run_cli("plan", "--program", str(d), "--stack", "dev", "--create-baseline", str(tmp_path / "b.json"))
    assert made.code == 0, made.err
    entries = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["stacks"][0]["findings"]
    assert entries == [
        {"rule": "imdsv2-required", "resource": LT, "path": "planner:cluster.notes"},
        {"rule": "readback-gap", "resource": OTHER, "path": "planner:cluster.notes"},
        {"rule": "readback-gap", "resource": ASG, "path": "planner:cluster.notes"},
    ]
    app = d / "app.py"
    app.write_text(
        '"""Moved down."""\n\n\n' + app.read_text(encoding="utf-8").replace('"optional"', '"required"'),
        encoding="utf-8",
    )
    judged = run_cli(
        "plan", "--program", str(d), "--stack", "dev", "--baseline", str(tmp_path / "b.json"), "--format", "json"
    )
    assert judged.code == 0, judged.err
    (stack,) = json.loads(judged.out)["stacks"]
    assert {(f["rule"], f["resource"], f["line"], f["suppression"]["kind"]) for f in stack["findings"]} == {
        ("readback-gap", ASG, 14, "baseline"),
        ("readback-gap", OTHER, 16, "baseline"),
    }
    assert stack["baseline_fixed"] == [{"rule": "imdsv2-required", "path": "planner:cluster.notes", "resource": LT}]


def test_diff_of_a_program_shows_the_bases_suppressions_at_the_ref(tmp_path: Path) -> None:
    """The base side runs from a temporary export: what it says of a resource's suppressions names the
    file as `REF:path`, as its findings do, never the temporary folder."""
    from tests.test_diff import _git, _program_repo

    repo = _program_repo(tmp_path)
    main = repo / "infra" / "__main__.py"
    main.write_text(
        main.read_text(encoding="utf-8").replace(
            "aws.eks.NodeGroup(", "# planner: ignore[efa-recommended] checked by hand\naws.eks.NodeGroup(", 1
        ),
        encoding="utf-8",
    )
    _git(repo, "commit", "-qam", "a comment")
    res = run_cli("diff", "--program", "infra", "--stack", "test", "--base-ref", "HEAD", "--format", "json", cwd=repo)
    assert res.code == 0, res.err
    base = json.loads(res.out)["diff"]["base"]["stacks"][0]
    (unused,) = base["unused_suppressions"]
    assert (unused["rule"], unused["file"], unused["line"]) == ("efa-recommended", "HEAD:infra/__main__.py", 37)
    (head,) = json.loads(res.out)["stacks"]
    assert head["unused_suppressions"][0]["file"] == "infra/__main__.py"
