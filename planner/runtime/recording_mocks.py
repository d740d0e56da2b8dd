"""One family of Pulumi mocks: the bookkeeping shared by every mock planner runs programs under.

`PlannerMocks` records each registration (`resources`, as `Registered`), which resources
are custom (`custom`, by type and name), every invoke (`calls`), and serialises all of it
under one lock, since Pulumi registers resources from several threads. What a resource's
outputs are is the backend's part, `create` (and `invoke` for calls):

- `EchoMocks`: outputs are the inputs, plus the id, name and ARN a provider would fill in
  (`planner plan --program` offline, its read-back, the policy pack's `capture`);
- `planner.testing.MotoMocks`: each resource created through boto3 in a moto account.
"""

from __future__ import annotations

import threading
from typing import Any

import pulumi
from msgspec import Struct, field

MOCK_ACCOUNT = "000000000000"


class Registered(Struct):
    """One resource the program registered, and what the mocks did with it."""

    type: str
    name: str
    inputs: dict[str, Any]
    id: str
    outputs: dict[str, Any] = field(default_factory=dict)
    backend: str = "echo"  # echo | moto | recorded | component


class PlannerMocks(pulumi.runtime.Mocks):
    """Registration bookkeeping, thread safety and the answer to components; `create` is the backend."""

    def __init__(self, region: str | None = None) -> None:
        self.region = region
        self.resources: list[Registered] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.custom: dict[tuple[str, str], bool] = {}
        # Pulumi registers resources from several threads, and a backend (moto) may not be
        # thread-safe: every registration and invoke runs under this lock.
        self._lock = threading.RLock()

    # --- what tests look at -------------------------------------------------------------
    def of_type(self, type_: str) -> list[Registered]:
        return [r for r in self.resources if r.type == type_]

    def named(self, name: str) -> Registered:
        matches = [r for r in self.resources if r.name == name]
        if len(matches) != 1:
            raise KeyError(f"{len(matches)} resources named {name!r}")
        return matches[0]

    # --- pulumi.runtime.Mocks -------------------------------------------------------------
    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        with self._lock:
            inputs = dict(args.inputs)
            self.custom[(args.typ, args.name)] = bool(args.custom)
            if args.custom:
                id_, outputs, backend = self.create(args, inputs)
            else:
                id_, outputs, backend = self.component(args, inputs)
            self.resources.append(Registered(args.typ, args.name, inputs, id_, outputs, backend))
            return id_, outputs

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        with self._lock:
            self.calls.append((args.token, dict(args.args)))
            return self.invoke(args.token, dict(args.args)), []  # no check failures

    # --- the backend's part -------------------------------------------------------------
    def create(self, args: pulumi.runtime.MockResourceArgs, inputs: dict[str, Any]) -> tuple[str, dict[str, Any], str]:
        """(id, outputs, backend name) of a custom resource."""
        raise NotImplementedError

    def component(
        self, args: pulumi.runtime.MockResourceArgs, inputs: dict[str, Any]
    ) -> tuple[str, dict[str, Any], str]:
        """A component resource has no cloud side: its outputs are its inputs."""
        return "", inputs, "component"

    def invoke(self, token: str, args: dict[str, Any]) -> dict[str, Any]:
        """An invoke's answer; none by default."""
        return {}


def echo_id(args: pulumi.runtime.MockResourceArgs) -> str:
    return f"{args.name}-id"


def echo_arn(type_: str, id_: str) -> str:
    """An ARN ending in the resource id, as AWS ARNs do."""
    return f"arn:aws:mock::{MOCK_ACCOUNT}:{type_.rsplit(':', 1)[-1]}/{id_}"


class EchoMocks(PlannerMocks):
    """Mocks that create nothing: outputs are the inputs, the id is `<name>-id`.

    With `provider_fields`, a resource also gets what the provider fills in and other
    resources refer to: a name when none was given (auto-naming, without its random
    suffix; https://www.pulumi.com/docs/iac/concepts/resources/names/), for a Kubernetes object
    its `metadata.name` (the Kubernetes provider auto-names an object given none, "when resources
    don't explicitly contain a name field, they are auto-named by default":
    https://github.com/pulumi/pulumi-kubernetes/issues/2539), and an ARN ending in the id, so
    references between resources resolve as in a deployed stack (a claim naming its StorageClass
    by `storage_class.metadata.name`) (`components_too`: component resources get them as well).
    """

    def __init__(self, provider_fields: bool = False, components_too: bool = False, region: str | None = None) -> None:
        super().__init__(region)
        self.provider_fields = provider_fields
        self.components_too = components_too

    def _echo(self, args: pulumi.runtime.MockResourceArgs, inputs: dict[str, Any], fill: bool) -> dict[str, Any]:
        state = dict(inputs)
        if fill:
            state.setdefault("name", args.name)
            state.setdefault("arn", echo_arn(args.typ, echo_id(args)))
            if args.typ.startswith("kubernetes:") and not args.typ.startswith("kubernetes:helm"):
                metadata = state.get("metadata")
                if metadata is None or isinstance(metadata, dict):
                    state["metadata"] = {"name": args.name, **(metadata or {})}
        return state

    def create(self, args: pulumi.runtime.MockResourceArgs, inputs: dict[str, Any]) -> tuple[str, dict[str, Any], str]:
        return echo_id(args), self._echo(args, inputs, self.provider_fields), "echo"

    def component(
        self, args: pulumi.runtime.MockResourceArgs, inputs: dict[str, Any]
    ) -> tuple[str, dict[str, Any], str]:
        return echo_id(args), self._echo(args, inputs, self.provider_fields and self.components_too), "component"
