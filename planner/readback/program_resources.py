"""`planner plan --program`: a program's plain AWS resources read back into a planned stack.

The child process that runs the program (`planner.runtime.child_process`) sends every resource
it registered; this module turns them into the policy pack's `Graph`, reads the cluster
back with the pack's own code (`planner.readback.topology`), and gives the stack a locator
(`ProgramLocator`) naming where each resource was declared, so that findings are made at
the program's file and line, carry the resource's URN (SARIF logical location) and say their
fix in the program's terms.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from planner.core.input.locations import Location
from planner.core.input.stack_files import CLUSTER_PATH
from planner.core.model.cluster import Path, Stack
from planner.core.model.findings import Fix
from planner.core.model.provenance import Provenance
from planner.core.reading.problems import InputError, Problem
from planner.core.reading.yaml_lines import Lines


class Planning(Struct, frozen=True):
    """The planning keys of a program's stack config (`planner:cluster`: schedule, workload,
    budget, suppress), checked, with the file and lines they were read from."""

    data: dict[str, Any]
    file: str
    lines: Lines

    def where(self, path: tuple[Any, ...]) -> tuple[str, int | None] | None:
        """The stack file's line for a finding at `path`, when `path` is one of these keys."""
        from planner.core.reading.yaml_lines import line_of

        if len(path) >= 3 and path[:2] == CLUSTER_PATH and path[2] in self.data:
            return self.file, line_of(self.lines, tuple(path))
        return None


def planning_config(path: str | None, file: str = "") -> Planning | None:
    """The planning keys of the stack file at `path`, shown as `file` (None: no file, or no
    `planner:cluster`); InputError naming the file and line of a key that cannot apply or a bad value."""
    if path is None:
        return None
    from planner.core.input.stack_files import CLUSTER_KEY, planning_inputs
    from planner.core.planning.pipeline import unknown_rule_message
    from planner.core.reading import yaml_lines as yamlload

    data, lines = yamlload.load_path(path)
    config = data.get("config") if isinstance(data, dict) else None
    raw = config.get(CLUSTER_KEY) if isinstance(config, dict) else None
    if raw is None:
        return None
    file = file or path
    keys = planning_inputs(raw, file, lines)
    problems = []
    for i, entry in enumerate(keys.suppress):
        msg = unknown_rule_message(entry.rule)
        if msg:
            where = CLUSTER_PATH + ("suppress", i, "rule")
            problems.append(Problem(file, yamlload.line_of(lines, where), f"{CLUSTER_KEY}.suppress[{i}].rule", msg))
    if problems:
        raise InputError(problems)
    return Planning(dict(raw), file, lines)


def from_program(
    resources: list[dict[str, Any]], stack: str, config: dict[str, str], main: str, planning: Planning | None = None
) -> Stack | None:
    """The cluster read back from `resources` (as the child sent them); None: nothing accelerated.

    Resources that planner components created are left out: those clusters are planned
    from the components themselves, never twice.
    """
    from planner.readback import suppressions
    from planner.readback.resource_inputs import program_violations
    from planner.readback.resources import AWS_PROVIDER, Graph, Resource
    from planner.readback.subnets import add_subnet_ids
    from planner.readback.topology import rebuild, to_stack

    region = config.get("aws:region") or None
    graph_items = []
    sources: dict[str, tuple[str, int | None]] = {}
    for r in resources:
        if not r.get("custom") or "planner:" in r["urn"].split("::")[2]:
            continue
        provider = {"region": region} if region and not r["type"].startswith("pulumi:providers:") else {}
        graph_items.append(
            Resource(r["type"], r["urn"], r["name"], dict(r.get("props") or {}), provider_props=provider)
        )
        if r.get("source"):
            sources[r["urn"]] = (str(r["source"][0]), r["source"][1])
    graph = Graph(graph_items)
    if region is None:
        # an explicit provider resource names it as a property
        region = next((p.get("region") for p in graph.of_type(AWS_PROVIDER) if isinstance(p.get("region"), str)), None)
    rebuilt = rebuild(graph, region)
    if rebuilt.region is None and (
        rebuilt.data is not None or rebuilt.unplanned or any("region" in g.message for g in rebuilt.gaps)
    ):
        raise InputError(
            [
                Problem(
                    main,
                    None,
                    "aws:region",
                    "cannot tell the AWS region of the program's resources: set "
                    f"`aws:region` in Pulumi.{stack}.yaml (or give a subnet an AZ)",
                )
            ]
        )
    # the pack's resource checks that judge resources, not the cluster (IMDSv2, security groups), under their rules' ids
    rebuilt.gaps.extend(program_violations(graph))
    add_subnet_ids(graph, rebuilt)  # for `planner preflight`'s free addresses
    # each resource's own suppressions: its `planner:suppress:<rule>` tags, the `# planner: ignore[...]`
    # comments on its declaration (planner.readback.suppressions)
    tagged, unusable = suppressions.from_tags(graph.resources, sources)
    commented, unusable_comments = suppressions.from_comments(graph.resources, sources)
    unusable += unusable_comments
    found, problems = to_stack(rebuilt, stack, main, planning.data if planning else None, tuple(tagged + commented))
    if found is None and not problems:
        return None
    if problems or unusable:
        raise InputError(
            [_problem(p.message, p.urn, sources, main) for p in problems]
            + [Problem(u.file or main, u.line, u.key, u.message) for u in unusable]
        )
    if found is None:  # not reached: to_stack gives a stack or its problems
        return None
    return replace(found, locator=ProgramLocator(sources, planning), provenance=provenance(found, sources))


def provenance(stack: Stack, sources: dict[str, tuple[str, int | None]]) -> dict[Path, Provenance]:
    """Each model path read back: its resource, the property holding it as the program writes it
    (`planner.readback.program_terms.PROPERTIES`, per resource class), the file and line that declared it."""
    from planner.readback.program_terms import PROPERTIES, leaf_key, resource_of

    out: dict[Path, Provenance] = {}
    for path, urn in stack.resources.items():
        if urn is None:
            continue
        cls, _ = resource_of(urn)
        prop = PROPERTIES.get(cls, {}).get(leaf_key(path) or "", "")
        file, line = sources.get(urn, (None, None))
        out[path] = Provenance(urn, prop, file, line)
    return out


def _problem(message: str, urn: str | None, sources: dict[str, tuple[str, int | None]], main: str) -> Problem:
    file, line = sources.get(urn or "", (main, None))
    return Problem(file, line, "", message)


class ProgramLocator(Struct, frozen=True):
    """Where a read-back stack's values were declared: a planning key (schedule, budget,
    suppression) at its line of the stack config, any other value at the program's file and
    line of the resource it was read from (`sources`, per URN), with that URN."""

    sources: dict[str, tuple[str, int | None]]
    planning: Planning | None = None

    def locate(self, stack: Stack, path: Path) -> Location:
        from planner.core.input.locations import nearest
        from planner.core.reading.fields import key_path

        key = key_path(path)
        in_config = self.planning.where(path) if self.planning else None
        if in_config is not None:
            return Location(in_config[0], in_config[1], None, key)
        urn = nearest(stack.resources, path)
        file, line = self.sources.get(urn, (stack.file, None)) if urn else (stack.file, None)
        return Location(file, line, urn, key)

    def say(self, stack: Stack, fix: Fix) -> str:
        """The fix in the program's terms (`planner.readback.program_terms`): each edit against the resource
        and property it was read from, a planning key's in the stack config."""
        from planner.readback.program_terms import in_program_terms

        return in_program_terms(stack, fix)
