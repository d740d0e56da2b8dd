"""The pack as the Pulumi engine runs it: `policy/__main__.py` started in `policy/`, spoken to over gRPC.

The engine starts the analyzer, reads the port it prints, asks for the policies, sends the
policy config, then the stack's resources; this test does the same without the Pulumi CLI,
so what the policies see is exactly the protobuf round trip of a real preview.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
STACK = "urn:pulumi:dev::cluster::"


@pytest.fixture(scope="module")
def analyzer() -> Iterator[analyzer_pb2_grpc.AnalyzerStub]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PULUMI_STACK="dev")
    proc = subprocess.Popen(
        [sys.executable, "-c", "import runpy; runpy.run_path('__main__.py', run_name='__main__')"],
        cwd=ROOT / "policy",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        port = int(proc.stdout.readline().decode().strip() or 0)  # the first line, as the engine reads it
        assert port, proc.stderr.read().decode()
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield analyzer_pb2_grpc.AnalyzerStub(channel)
    finally:
        proc.kill()
        proc.wait(timeout=10)


def struct(d: dict[str, Any]) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(d)
    return s


def resource(type_: str, name: str, props: dict[str, Any], **deps: list[str]) -> analyzer_pb2.AnalyzerResource:
    return analyzer_pb2.AnalyzerResource(
        type=type_,
        name=name,
        urn=f"{STACK}{type_}::{name}",
        properties=struct(props),
        provider=analyzer_pb2.AnalyzerProviderResource(
            type="pulumi:providers:aws",
            name="default",
            urn=f"{STACK}pulumi:providers:aws::default",
            properties=struct({"region": "us-east-2"}),
        ),
        propertyDependencies={k: analyzer_pb2.AnalyzerPropertyDependencies(urns=v) for k, v in deps.items()},
    )


def test_analyzer_info_lists_every_policy_with_its_level_and_schema(analyzer: analyzer_pb2_grpc.AnalyzerStub) -> None:
    info = analyzer.GetAnalyzerInfo(empty_pb2.Empty())
    assert info.name == "planner" and info.supportsConfig
    levels = {p.name: p.enforcementLevel for p in info.policies}
    assert levels["planner-topology"] == analyzer_pb2.MANDATORY
    assert levels["planner-topology-warnings"] == analyzer_pb2.ADVISORY
    budget = next(p for p in info.policies if p.name == "planner-budget")
    schema = json_format.MessageToDict(budget.configSchema)
    assert schema["properties"]["maxTotalUsd"]["type"] == "number"


def test_preview_of_a_broken_cluster_over_grpc(analyzer: analyzer_pb2_grpc.AnalyzerStub) -> None:
    """At preview: ids unknown, references through property dependencies; violations carry the URN at fault."""
    unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # the engine's unknown-string sentinel
    subnet = resource("aws:ec2/subnet:Subnet", "private", {"availabilityZone": "us-east-2b", "arn": unknown})
    lt = resource(
        "aws:ec2/launchTemplate:LaunchTemplate",
        "trainers",
        {
            "name": "trainers-1a2b3c4",
            "instanceType": "trn2u.48xlarge",
            "arn": unknown,
            "metadataOptions": {"httpTokens": "required"},
            "instanceMarketOptions": {"marketType": "capacity-block"},
            "networkInterfaces": [
                {
                    "networkCardIndex": c,
                    "deviceIndex": 1 if c else 0,
                    "interfaceType": "efa" if c == 0 else "efa-only",
                    "securityGroups": [unknown],
                }
                for c in range(16)
            ],
        },
    )
    asg = resource(
        "aws:autoscaling/group:Group",
        "trainers",
        {
            "desiredCapacity": 6,
            "maxSize": 6,
            "launchTemplate": {"id": unknown, "version": "$Latest"},
            "vpcZoneIdentifiers": [unknown],
        },
        launchTemplate=[lt.urn],
        vpcZoneIdentifiers=[subnet.urn],
    )
    fs = resource(
        "aws:fsx/lustreFileSystem:LustreFileSystem",
        "data",
        {
            "deploymentType": "PERSISTENT_2",
            "storageCapacity": 1000,
            "perUnitStorageThroughput": 250,
            "subnetIds": unknown,
        },
        subnetIds=[subnet.urn],
    )
    analyzer.Configure(
        analyzer_pb2.ConfigureAnalyzerRequest(
            policyConfig={
                "planner-topology-warnings": analyzer_pb2.PolicyConfig(enforcementLevel=analyzer_pb2.DISABLED)
            }
        )
    )
    response = analyzer.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=[subnet, lt, asg, fs]))
    found = {
        (d.policyName, d.message.split("\n", 1)[1].split("]")[0].lstrip("["), d.urn, d.enforcementLevel)
        for d in response.diagnostics
    }
    # 6 trn2u.48xlarge are 1.5 UltraServers: a warning (planner-topology-warnings, disabled here), not mandatory;
    # the file system's capacity is its resource policy's (below), reported once: nothing mandatory from the topology
    assert found == set()
    # a resource policy, as the engine calls it on one resource's inputs
    single = analyzer.Analyze(
        analyzer_pb2.AnalyzeRequest(type=fs.type, name=fs.name, urn=fs.urn, properties=fs.properties)
    )
    assert [(d.policyName, d.urn) for d in single.diagnostics] == [("planner-lustre-values", fs.urn)]
