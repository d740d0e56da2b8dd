"""`planner preflight` against a local AWS: moto's server on a loopback port, reached through
`AWS_ENDPOINT_URL`, exactly as docs/tasks/preflight.md tells users to run it.

The server runs as its own process (`moto_server`, from the test extra's `moto[server]`),
the CLI as another, so nothing is patched in-process: every answer comes over HTTP.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest

from tests.conftest import ROOT
from tests.test_preflight_helpers import CLEARED, FAKE_CREDENTIALS


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    port = _free_port()
    server = shutil.which("moto_server", path=os.path.dirname(sys.executable))
    assert server, "moto_server not installed: the test extra needs moto[server]"
    proc = subprocess.Popen(
        [server, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):  # until it answers: a start-up wait, not a measurement (no clock is read)
            try:
                urllib.request.urlopen(f"{url}/moto-api/", timeout=2).close()
                break
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else "moto_server exited"
                time.sleep(0.2)
        else:
            pytest.fail("moto_server did not answer after 300 tries")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _env(tmp_path: Path, endpoint: str) -> dict[str, str]:
    """The user's shell in the recipe: fake keys, the endpoint, nothing of any real AWS setup."""
    env = {k: v for k, v in os.environ.items() if k not in CLEARED and k not in FAKE_CREDENTIALS}
    env.update(
        FAKE_CREDENTIALS,
        AWS_ENDPOINT_URL=endpoint,
        AWS_DEFAULT_REGION="us-east-1",
        AWS_CONFIG_FILE=str(tmp_path / "no-config"),
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "no-credentials"),
        AWS_EC2_METADATA_DISABLED="true",
    )
    return env


def _preflight(tmp_path: Path, endpoint: str, *paths: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "planner", "preflight", *paths],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=dict(_env(tmp_path, endpoint), PYTHONPATH=str(ROOT)),
        timeout=120,
    )


STACK = """config:
  aws:region: us-east-1
  planner:cluster:
    availability_zone: us-east-1a
    node_groups:
      - name: trainers
        instance_type: p5en.48xlarge
        count: 2
    network:
      vpc_id: {vpc}
      subnet_id: {subnet}
"""


def test_preflight_reads_the_local_account(endpoint: str, tmp_path: Path) -> None:
    """A VPC and subnet created in the server are found; ids that are not there are reported."""
    ec2 = boto3.client(
        "ec2",
        region_name="us-east-1",
        endpoint_url=endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.0.0/19", AvailabilityZone="us-east-1a")["Subnet"]["SubnetId"]
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.here.yaml").write_text(STACK.format(vpc=vpc, subnet=subnet), encoding="utf-8")
    (tmp_path / "stacks" / "Pulumi.gone.yaml").write_text(
        STACK.format(vpc="vpc-0123456789abcdef0", subnet="subnet-0123456789abcdef0"), encoding="utf-8"
    )

    here = _preflight(tmp_path, endpoint, "stacks/Pulumi.here.yaml", "--format", "github")
    assert here.stderr == ""
    assert "preflight-network" not in here.stdout, here.stdout  # found in the server's account
    assert "preflight-offering" not in here.stdout  # moto's offerings list p5en.48xlarge in us-east-1a
    # moto has no Service Quotas in us-east-1: reported as a partial preflight, never as a pass
    assert "title=preflight-aws-error::could not check the vCPU quota L-417A185B" in here.stdout
    assert here.returncode == 1

    gone = _preflight(tmp_path, endpoint, "stacks/Pulumi.gone.yaml", "--format", "github")
    assert "title=preflight-network::VPC vpc-0123456789abcdef0 does not exist in us-east-1" in gone.stdout
    assert "title=preflight-network::subnet subnet-0123456789abcdef0 does not exist in us-east-1" in gone.stdout


def test_the_bundled_trn2_stack_against_the_server(endpoint: str, tmp_path: Path) -> None:
    """The recipe's example: the documented Trainium2 memory `info` and moto's missing Service Quotas."""
    shutil.copytree(ROOT / "stacks", tmp_path / "stacks")
    res = _preflight(tmp_path, endpoint, "stacks/Pulumi.trn2-dev.yaml", "--format", "github")
    lines = res.stdout.splitlines()
    assert [line.split("::")[1].split(",title=")[1] for line in lines[:-1]] == [
        "preflight-catalogue",
        "preflight-aws-error",
    ]
    assert lines[0].startswith(
        "::notice file=stacks/Pulumi.trn2-dev.yaml,line=9,title=preflight-catalogue::"
        "trn2.48xlarge: memory per Trainium2 512 GiB in DescribeInstanceTypes (us-east-2)"
    )
    assert lines[-1] == "planner: 1 stack, 1 error, 0 warnings, 1 info, 0 suppressed"
