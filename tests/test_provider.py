"""The component package, as Pulumi uses it from TypeScript, Go, C#, Java or YAML.

The schema is what Pulumi's analyzer infers from `planner.provider` (the committed copy,
`planner/provider/schema.json`, must match it). `Construct` is tested as the engine calls it:
`python -m planner.provider ENGINE` started as a plugin, its port read from its first line,
then spoken to over the provider gRPC protocol, with this test serving the engine and the
resource monitor the provider registers its children with (a recording monitor that echoes
inputs as outputs, as `pulumi.runtime.set_mocks` does in-process). No Pulumi CLI, no AWS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import (
    engine_pb2,
    engine_pb2_grpc,
    provider_pb2,
    provider_pb2_grpc,
    resource_pb2,
    resource_pb2_grpc,
)

from planner.provider import gen_schema, schema
from tests.conftest import ROOT

COMPONENTS = ("Trn2Cluster", "UltraServerCluster", "P5enCluster", "EfaNetwork", "LustreStorage")
STACK, PROJECT = "dev", "infra"


def _described(prop: dict[str, Any], where: str) -> None:
    assert prop.get("description"), f"{where}: no description"
    assert prop.get("type") or prop.get("$ref"), f"{where}: no type"


def test_schema_lists_the_five_components_with_typed_documented_inputs_and_outputs() -> None:
    s = schema()
    assert s["name"] == "planner"
    assert sorted(s["resources"]) == sorted(f"planner:index:{c}" for c in COMPONENTS)
    for token, res in s["resources"].items():
        assert res["isComponent"] and res["description"], token
        assert res["inputProperties"] and res["properties"], token
        for kind in ("inputProperties", "properties"):
            for key, prop in res[kind].items():
                _described(prop, f"{token}.{kind}.{key}")
    for token, typ in s["types"].items():
        assert typ["description"], token
        for key, prop in typ["properties"].items():
            _described(prop, f"{token}.{key}")
    ultra = s["resources"]["planner:index:UltraServerCluster"]
    assert set(ultra["requiredInputs"]) == {"availabilityZone", "nodeGroups"}
    assert ultra["inputProperties"]["nodeGroups"]["items"]["$ref"] == "#/types/planner:index:NodeGroup"
    assert ultra["inputProperties"]["scheduleHours"]["type"] == "number"
    assert s["types"]["planner:index:NodeGroup"]["properties"]["ultraservers"]["type"] == "integer"
    assert s["types"]["planner:index:NodeGroup"]["required"] == ["name"]
    assert ultra["properties"]["instances"]["type"] == "integer"
    assert ultra["properties"]["findings"]["items"]["$ref"] == "#/types/planner:index:Finding"
    # The three cluster components expose the same outputs (their annotations are repeated on purpose).
    outputs = [s["resources"][f"planner:index:{c}"]["properties"] for c in COMPONENTS[:3]]
    assert outputs[0] == outputs[1] == outputs[2]
    assert (
        s["resources"]["planner:index:LustreStorage"]["inputProperties"]["lustre"]["$ref"]
        == "#/types/planner:index:Lustre"
    )


def test_the_committed_schema_is_the_inferred_one() -> None:
    committed = (ROOT / gen_schema.PATH).read_text(encoding="utf-8")
    assert committed == gen_schema.render(), (
        f"{gen_schema.PATH} is stale: regenerate it with `.venv/bin/python -m planner.provider.gen_schema`"
    )


def test_plugin_manifest_points_at_the_entry_point() -> None:
    import yaml

    manifest = yaml.safe_load((ROOT / "PulumiPlugin.yaml").read_text(encoding="utf-8"))
    assert manifest["runtime"]["name"] == "python"
    assert (ROOT / manifest["main"] / "__main__.py").is_file()


# --- Construct over gRPC ---------------------------------------------------------------------


class Monitor(resource_pb2_grpc.ResourceMonitorServicer):
    """A resource monitor that records registrations and echoes inputs as outputs."""

    def __init__(self) -> None:
        self.registered: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def GetDeploymentInfo(self, request: Any, context: Any) -> resource_pb2.DeploymentInfo:
        return resource_pb2.DeploymentInfo(
            supportedFeatures=[
                resource_pb2.RESOURCE_MONITOR_FEATURE_SECRETS,
                resource_pb2.RESOURCE_MONITOR_FEATURE_RESOURCE_REFERENCES,
            ]
        )

    def SupportsFeature(self, request: Any, context: Any) -> resource_pb2.SupportsFeatureResponse:
        return resource_pb2.SupportsFeatureResponse(hasSupport=request.id in ("secrets", "resourceReferences"))

    def RegisterResource(self, request: Any, context: Any) -> resource_pb2.RegisterResourceResponse:
        chain = request.type
        if request.parent:
            chain = request.parent.split("::")[2] + "$" + request.type
        urn = f"urn:pulumi:{STACK}::{PROJECT}::{chain}::{request.name}"
        with self.lock:
            self.registered.append(
                {
                    "urn": urn,
                    "type": request.type,
                    "name": request.name,
                    "custom": request.custom,
                    "parent": request.parent,
                    "inputs": json_format.MessageToDict(request.object),
                }
            )
        return resource_pb2.RegisterResourceResponse(
            urn=urn, id=f"{request.name}-id" if request.custom else "", object=request.object
        )

    def RegisterResourceOutputs(self, request: Any, context: Any) -> empty_pb2.Empty:
        return empty_pb2.Empty()

    def Invoke(self, request: Any, context: Any) -> resource_pb2.InvokeResponse:
        return resource_pb2.InvokeResponse(**{"return": struct_pb2.Struct()})

    def RegisterPackage(self, request: Any, context: Any) -> resource_pb2.RegisterPackageResponse:
        return resource_pb2.RegisterPackageResponse(ref=request.name)

    def SignalAndWaitForShutdown(self, request: Any, context: Any) -> empty_pb2.Empty:
        return empty_pb2.Empty()


class Engine(engine_pb2_grpc.EngineServicer):
    def __init__(self) -> None:
        self.logs: list[str] = []

    def Log(self, request: Any, context: Any) -> empty_pb2.Empty:
        self.logs.append(request.message)
        return empty_pb2.Empty()

    def GetRootResource(self, request: Any, context: Any) -> engine_pb2.GetRootResourceResponse:
        return engine_pb2.GetRootResourceResponse(urn="")

    def SetRootResource(self, request: Any, context: Any) -> engine_pb2.SetRootResourceResponse:
        return engine_pb2.SetRootResourceResponse()


@pytest.fixture(scope="module")
def plugin(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[provider_pb2_grpc.ResourceProviderStub, Monitor, int]]:
    """The plugin started as the engine starts it (outside the checkout), with our engine and monitor."""
    monitor, engine = Monitor(), Engine()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    resource_pb2_grpc.add_ResourceMonitorServicer_to_server(monitor, server)
    engine_pb2_grpc.add_EngineServicer_to_server(engine, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    proc = subprocess.Popen(
        [sys.executable, "-m", "planner.provider", f"127.0.0.1:{port}"],
        cwd=tmp_path_factory.mktemp("consumer"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PULUMI_STACK=STACK),
    )
    try:
        line = proc.stdout.readline().decode().strip()  # the first line, as the engine reads it
        assert line.isdigit(), proc.stderr.read().decode()
        with grpc.insecure_channel(f"127.0.0.1:{line}") as channel:
            yield provider_pb2_grpc.ResourceProviderStub(channel), monitor, port
    finally:
        proc.kill()
        proc.wait(timeout=10)
        server.stop(None)


def construct(
    plugin: tuple[Any, Monitor, int], component: str, name: str, inputs: dict[str, Any]
) -> provider_pb2.ConstructResponse:
    stub, _, port = plugin
    args = struct_pb2.Struct()
    args.update(inputs)
    return stub.Construct(
        provider_pb2.ConstructRequest(
            project=PROJECT,
            stack=STACK,
            config={"aws:region": "us-east-2"},
            dryRun=False,
            parallel=4,
            monitorEndpoint=f"127.0.0.1:{port}",
            type=f"planner:index:{component}",
            name=name,
            inputs=args,
        ),
        timeout=60,
    )


def test_get_schema_over_grpc_is_the_committed_schema(plugin: tuple[Any, Monitor, int]) -> None:
    stub, _, _ = plugin
    got = json.loads(stub.GetSchema(provider_pb2.GetSchemaRequest(version=0)).schema)
    assert got == json.loads((ROOT / gen_schema.PATH).read_text(encoding="utf-8"))


def test_construct_builds_an_ultraserver_cluster(plugin: tuple[Any, Monitor, int]) -> None:
    """The bundled ultraserver-prod cluster, sent as a YAML or TypeScript program would send it."""
    res = construct(
        plugin,
        "UltraServerCluster",
        "pretrain",
        {
            "availabilityZone": "us-east-2b",
            "nodeGroups": [
                {
                    "name": "trainers",
                    "ultraservers": 4,
                    "purchase": "capacity-block",
                    "capacityReservationId": "cr-0123456789abcdef0",
                }
            ],
            "placementGroup": "none",
            "lustre": {
                "deploymentType": "PERSISTENT_2",
                "storageCapacityGib": 9600,
                "perUnitStorageThroughput": 250,
                "s3ImportPath": "s3://example-training-data/tokens",
            },
            "scheduleHours": 336,
        },
    )
    state = json_format.MessageToDict(res.state)
    assert res.urn == f"urn:pulumi:{STACK}::{PROJECT}::planner:index:UltraServerCluster::pretrain"
    assert state["instances"] == 16 and state["accelerators"] == 256
    assert state["summary"]["ultraservers"] == 4
    assert {f["rule"] for f in state["findings"]} == set()
    assert state["totalUsd"] == documented_total()  # the same inputs as the documented example
    assert state["cost"]["complete"] is True
    mine = [r for r in plugin[1].registered if "::pretrain" in r["urn"] or "pretrain-" in r["name"]]
    by_type = {}
    for r in mine:
        by_type.setdefault(r["type"], []).append(r)
    (asg,) = by_type["aws:autoscaling/group:Group"]
    assert asg["inputs"]["desiredCapacity"] == 16 and asg["inputs"]["maxSize"] == 16
    (lt,) = by_type["aws:ec2/launchTemplate:LaunchTemplate"]
    assert lt["inputs"]["instanceType"] == "trn2u.48xlarge"
    assert lt["inputs"]["instanceMarketOptions"]["marketType"] == "capacity-block"
    assert len([i for i in lt["inputs"]["networkInterfaces"] if i["interfaceType"] in ("efa", "efa-only")]) == 16
    (fs,) = by_type["aws:fsx/lustreFileSystem:LustreFileSystem"]
    assert fs["inputs"]["deploymentType"] == "PERSISTENT_2" and fs["inputs"]["storageCapacity"] == 9600
    assert "aws:ec2/placementGroup:PlacementGroup" not in by_type
    # The Python component is the provider component's child: the same code plans and builds it.
    inner = by_type["planner:index:UltraServerCluster"]
    assert [r["custom"] for r in inner] == [False, False]


def test_construct_refuses_an_invalid_cluster_before_registering_anything(plugin: tuple[Any, Monitor, int]) -> None:
    before = len(plugin[1].registered)
    with pytest.raises(grpc.RpcError) as err:
        construct(
            plugin,
            "Trn2Cluster",
            "broken",
            {
                "availabilityZone": "us-east-2b",
                "nodeGroups": [{"name": "trainers", "count": 2}],
                "lustre": {"deploymentType": "SCRATCH_2", "storageCapacityGib": 3600},
            },
        )
    # Refused as invalid input properties: the engine shows planner's lines, and no Python stack
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    lines = err.value.details().splitlines()
    assert lines == [
        "Trn2Cluster('broken'): planner found 1 error(s), nothing was deployed:",
        "  Trn2Cluster('broken'): error [lustre-capacity] 3,600 GiB is not a valid capacity for SCRATCH_2; "
        "expected 1,200, or a multiple of 2,400 GiB (nearest above: 4,800)",
    ]
    # ... each error with the input property it concerns, in the status details the engine reads
    details = dict(err.value.trailing_metadata())["grpc-status-details-bin"]
    assert b"lustre.storageCapacityGib" in details and b"[lustre-capacity] 3,600 GiB" in details
    assert [r for r in plugin[1].registered[before:] if r["custom"]] == []


def test_construct_refuses_unusable_input_naming_the_property(plugin: tuple[Any, Monitor, int]) -> None:
    with pytest.raises(grpc.RpcError) as err:
        construct(
            plugin,
            "Trn2Cluster",
            "typo",
            {
                "availabilityZone": "us-east-2b",
                "nodeGroups": [
                    {"name": "trainers", "count": 2, "purchase": "capacity-block", "capacityReservationId": "nope"}
                ],
            },
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    (line,) = err.value.details().splitlines()
    assert "capacity_reservation_id" in line and "Traceback" not in line and 'File "' not in line
    assert b"nodeGroups[0].capacityReservationId" in dict(err.value.trailing_metadata())["grpc-status-details-bin"]


def test_construct_standalone_network_and_storage(plugin: tuple[Any, Monitor, int]) -> None:
    net = json_format.MessageToDict(
        construct(plugin, "EfaNetwork", "fabric", {"availabilityZone": "us-east-2b", "placementGroup": True}).state
    )
    assert net["vpcId"] == "fabric-vpc-id" and net["subnetId"] == "fabric-subnet-id"
    (pg,) = [
        r for r in plugin[1].registered if r["type"] == "aws:ec2/placementGroup:PlacementGroup" and "fabric" in r["urn"]
    ]
    assert pg["inputs"]["strategy"] == "cluster"
    fs = construct(
        plugin,
        "LustreStorage",
        "scratch",
        {
            "lustre": {"deploymentType": "SCRATCH_2", "storageCapacityGib": 2400},
            "subnetId": "subnet-0123456789abcdef0",
            "securityGroupIds": ["sg-0123456789abcdef0"],
            "availabilityZone": "us-east-2b",
        },
    )
    assert json_format.MessageToDict(fs.state)["fileSystemId"] == "scratch-fs-id"
    with pytest.raises(grpc.RpcError) as err:
        construct(
            plugin,
            "LustreStorage",
            "bad",
            {
                "lustre": {"deploymentType": "SCRATCH_2", "storageCapacityGib": 1000},
                "subnetId": "subnet-0123456789abcdef0",
                "securityGroupIds": [],
                "availabilityZone": "us-east-2b",
            },
        )
    assert "lustre-capacity" in err.value.details()


def documented_total() -> float:
    """The total the TypeScript example of docs/tasks/components.md gives in its comment."""
    import re

    page = (ROOT / "docs" / "tasks" / "components.md").read_text(encoding="utf-8")
    return float(re.search(r"pretrain\.totalUsd;\s*// ([\d.]+):", page).group(1))


def test_the_documented_yaml_example_constructs(plugin: tuple[Any, Monitor, int]) -> None:
    """docs/tasks/components.md: the YAML program's properties are what the engine sends as inputs."""
    import re

    import yaml

    page = (ROOT / "docs" / "tasks" / "components.md").read_text(encoding="utf-8")
    (program,) = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", page, flags=re.S) if "resources:" in b]
    resource = program["resources"]["pretrain"]
    assert resource["type"] == "planner:UltraServerCluster"
    state = json_format.MessageToDict(
        construct(plugin, "UltraServerCluster", "documented", resource["properties"]).state
    )
    assert state["instances"] == 16 and state["accelerators"] == 256  # the TypeScript example's comments
    assert state["totalUsd"] == documented_total()
    ts = re.search(r"```typescript\n(.*?)```", page, flags=re.S).group(1)
    # The TypeScript example declares the same inputs, key for key.
    inputs = set(re.findall(r'"(\w+)":', json.dumps(resource["properties"])))
    assert inputs == set(re.findall(r"^\s+(\w+):", ts, flags=re.M)) - {"import"}
