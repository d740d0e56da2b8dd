"""Run the pack's policies without the Pulumi CLI, on resources shaped as the engine sends them.

The analyzer receives each resource's properties as a protobuf Struct (numbers become
floats, values unknown at preview are sentinel strings), deserializes them and wraps them
in pulumi_policy's unknown-checking proxy; stack resources get their parent and
dependencies linked as objects. `stack_args` and `resource_args` do exactly that, so a test
(ours, or a team's test of its own program) sees what `pulumi preview --policy-pack` would.
`capture` runs a Pulumi program under mocks and returns the resources it registers.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from google.protobuf import json_format, struct_pb2
from msgspec import Struct, field
from pulumi_policy import (
    Policy,
    PolicyCustomTimeouts,
    PolicyProviderResource,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    StackValidationArgs,
)
from pulumi_policy.deserialize import deserialize_properties
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

UNKNOWN = UNKNOWN_STRING_VALUE  # what the engine sends for a value computed at deployment
STACK = "dev"
PROJECT = "cluster"


def urn(type_: str, name: str, parent_type: str | None = None, stack: str = STACK, project: str = PROJECT) -> str:
    qualified = f"{parent_type}${type_}" if parent_type else type_
    return f"urn:pulumi:{stack}::{project}::{qualified}::{name}"


class Spec(Struct):
    """One resource as a program registers it: type, name, properties, links to others."""

    type: str
    name: str
    props: dict[str, Any]
    parent: Spec | None = None
    property_dependencies: dict[str, list[Spec]] = field(default_factory=dict)
    urn: str = ""

    def __post_init__(self) -> None:
        if not self.urn:
            self.urn = urn(self.type, self.name, self.parent.type if self.parent else None)


def engine_props(props: Mapping[str, Any]) -> Any:
    """`props` after the engine's Struct round trip, behind pulumi_policy's unknown-checking proxy."""
    struct = struct_pb2.Struct()
    struct.update(dict(props))
    return unknown_checking_proxy(deserialize_properties(json_format.MessageToDict(struct)))


def _options(parent: str | None = None) -> PolicyResourceOptions:
    return PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], parent)


def _provider(region: str | None) -> PolicyProviderResource | None:
    if region is None:
        return None
    return PolicyProviderResource(
        "pulumi:providers:aws", engine_props({"region": region}), urn("pulumi:providers:aws", "default"), "default"
    )


def stack_args(
    specs: Iterable[Spec], config: Mapping[str, Any] | None = None, region: str | None = "us-east-2"
) -> StackValidationArgs:
    """StackValidationArgs as the analyzer builds them (outputs, parents and dependencies linked)."""
    specs = list(specs)
    made = {
        s.urn: PolicyResource(
            s.type,
            engine_props(s.props),
            s.urn,
            s.name,
            _options(s.parent.urn if s.parent else None),
            _provider(region),
            None,
            [],
            {},
        )
        for s in specs
    }
    for s in specs:
        r = made[s.urn]
        if s.parent is not None and s.parent.urn in made:
            r.parent = made[s.parent.urn]
        for prop, deps in s.property_dependencies.items():
            r.property_dependencies[prop] = [made[d.urn] for d in deps if d.urn in made]
            r.dependencies.extend(made[d.urn] for d in deps if d.urn in made and made[d.urn] not in r.dependencies)
    return StackValidationArgs(list(made.values()), dict(config) if config else None)


def resource_args(spec: Spec, config: Mapping[str, Any] | None = None) -> ResourceValidationArgs:
    """ResourceValidationArgs as the analyzer builds them (the resource's inputs)."""
    return ResourceValidationArgs(
        spec.type,
        engine_props(spec.props),
        spec.urn,
        spec.name,
        _options(spec.parent.urn if spec.parent else None),
        None,
        dict(config) if config else None,
    )


def violations(
    policy: Policy, args: StackValidationArgs | ResourceValidationArgs, not_applicable: list[str] | None = None
) -> list[tuple[str, str | None]]:
    """(message, urn) of every violation `policy` reports for `args`; awaitables run on a fresh loop.

    A policy that declares itself not applicable (`args.not_applicable(reason)`: the pack's findings
    suppressed on their resources, with the reasons) reports nothing, as the engine records it; its
    reason is appended to `not_applicable` when given."""
    from pulumi_policy.policy import _NotApplicableError

    found: list[tuple[str, str | None]] = []
    try:
        result = policy.validate(args, lambda message, urn=None: found.append((message, urn)))  # type: ignore[attr-defined]  # pulumi_policy's Policy declares no validate; both its kinds do
        if inspect.isawaitable(result):
            loop = asyncio.new_event_loop()
            try:
                loop.run_until_complete(result)
            finally:
                loop.close()
    except _NotApplicableError as exc:  # what the analyzer catches too (pulumi_policy.policy)
        if not_applicable is not None:
            not_applicable.append(exc.reason or "")
    return found


class Reported(Struct, frozen=True):
    policy: str
    enforcement: str
    message: str
    urn: str | None


class Captured(list[Spec]):
    """The resources `capture` saw (a list of Spec), and the stack config the program ran with."""

    config: dict[str, str]


DEFAULT_REGION = "us-east-2"
_FROM_PROGRAM = "from the program"  # check(): take the region from the captured program's aws:region


def check(
    specs: Iterable[Spec],
    policies: Iterable[Policy] | None = None,
    config: Mapping[str, Any] | None = None,
    region: str | None = _FROM_PROGRAM,
    not_applicable: list[Reported] | None = None,
) -> list[Reported]:
    """Every violation the pack reports for `specs`, as `pulumi preview --policy-pack` would.

    `not_applicable`, when given, receives each policy that declared itself not applicable, with its
    reason as the message (enforcement `not-applicable`): how the pack shows findings suppressed on
    their resources (a `planner:suppress:<rule>` tag, a `suppress` entry naming the resource).

    The AWS provider's region is `region` when given (None: no provider); otherwise the
    `aws:region` the captured program ran with (`capture(..., config=...)`), else us-east-2.

    `config` has the shape of a `--policy-pack-config` file: policy name to an enforcement
    level, or to an object of properties (with an optional `enforcementLevel`). Stack
    policies see all resources; resource policies see each resource's props in turn.
    """
    from pulumi_policy import StackValidationPolicy

    from planner.policy import POLICIES

    if region == _FROM_PROGRAM:
        region = (getattr(specs, "config", None) or {}).get("aws:region") or DEFAULT_REGION
    specs = list(specs)
    out: list[Reported] = []
    for policy in POLICIES if policies is None else policies:
        raw = (config or {}).get(policy.name)
        level = policy.enforcement_level.value if policy.enforcement_level else "advisory"
        props: dict[str, Any] = {}
        if isinstance(raw, str):
            level = raw
        elif isinstance(raw, Mapping):
            props = {k: v for k, v in raw.items() if k != "enforcementLevel"}
            level = raw.get("enforcementLevel", level)
        if level == "disabled":
            continue
        if isinstance(policy, StackValidationPolicy):
            quiet: list[str] = []
            found = violations(policy, stack_args(specs, props, region), quiet)
            said: list[tuple[str, str | None]] = [(m, None) for m in quiet]
        else:
            found, said = [], []
            for s in specs:
                quiet = []
                found += [(m, s.urn) for m, _ in violations(policy, resource_args(s, props), quiet)]
                said += [(m, s.urn) for m in quiet]
        out.extend(Reported(policy.name, level, m, u) for m, u in found)
        if not_applicable is not None:
            not_applicable.extend(Reported(policy.name, "not-applicable", m, u) for m, u in said)
    return out


def capture(
    program: Callable[[], Any],
    config: Mapping[str, str] | None = None,
    stack: str = STACK,
    project: str = PROJECT,
    mocks: Any = None,
) -> Captured:
    """Run `program` under Pulumi mocks; return the resources it registered, with their URNs.

    `mocks` defaults to echo mocks: each registration is answered with its inputs plus an
    ARN ending in the resource id (as AWS ARNs do) and a name when none was given (as
    auto-naming does), so references between resources resolve as in a deployed stack.
    Pass `planner.testing.MotoMocks` (inside `moto.mock_aws()`) for outputs from moto.
    URNs are the engine's: resources parented to the stack carry no `pulumi:pulumi:Stack$`.
    """
    from pulumi.runtime.mocks import MockMonitor
    from pulumi.runtime.settings import get_monitor

    from planner.runtime.offline_run import run_with_mocks
    from planner.runtime.recording_mocks import EchoMocks

    echo = EchoMocks(provider_fields=True, components_too=True)
    run_with_mocks(program, mocks or echo, dict(config or {}), project=project, stack=stack)
    out = Captured()
    out.config = dict(config or {})
    for reg in cast(MockMonitor, get_monitor()).get_registered_resources().values():  # set_mocks' monitor
        full = reg.urn.replace("::pulumi:pulumi:Stack$", "::", 1)
        qualified, name = full.split("::")[2], full.split("::", 3)[3]
        out.append(Spec(qualified.split("$")[-1], name, _jsonable(reg.state), urn=full))
    return out


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value
