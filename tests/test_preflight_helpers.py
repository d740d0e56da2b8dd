"""Fake AWS for the preflight and live-price tests: fake credentials, moto, botocore's Stubber.

No test reaches AWS: credentials are fake, the shared config files point at nothing, the
instance metadata endpoint is disabled, and every client is either inside `mock_aws` or
has an active Stubber (which fails on any call it was not given).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
}
CLEARED = (
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_ROLE_ARN",
)


def isolate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, credentials: bool = True) -> None:
    """An AWS environment with nothing of the real one: fake (or no) credentials, no config, no IMDS."""
    for name in CLEARED + tuple(FAKE_CREDENTIALS):
        monkeypatch.delenv(name, raising=False)
    if credentials:
        for name, value in FAKE_CREDENTIALS.items():
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


_SESSION: Any = None


def fake_session() -> Any:
    """One boto3 session with fake keys for all Stubber tests: it loads each service model once."""
    global _SESSION
    if _SESSION is None:
        import boto3

        _SESSION = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1")
    return _SESSION


class StubbedAws:
    """botocore clients with active Stubbers, made on demand per (service, region)."""

    def __init__(self) -> None:
        self.session = fake_session()
        self.clients: dict[tuple[str, str], Any] = {}
        self.stubbers: dict[tuple[str, str], Any] = {}

    def client(self, service: str, region: str) -> Any:
        from botocore.stub import Stubber

        key = (service, region)
        if key not in self.clients:
            from botocore.config import Config

            # one attempt: a failure path must not sleep through retries
            self.clients[key] = self.session.client(
                service, region_name=region, config=Config(retries={"total_max_attempts": 1})
            )
            self.stubbers[key] = Stubber(self.clients[key])
            self.stubbers[key].activate()
        return self.clients[key]

    def stub(self, service: str, region: str) -> Any:
        self.client(service, region)
        return self.stubbers[(service, region)]

    def fail_on_send(self, service: str, region: str, exc: Exception) -> None:
        """Make every request of this client fail as if the network did (before anything is sent)."""

        def boom(**_: Any) -> None:
            raise exc

        client = self.client(service, region)
        self.stubbers[(service, region)].deactivate()
        client.meta.events.register_first("before-send", boom)

    def assert_no_pending(self) -> None:
        for s in self.stubbers.values():
            s.assert_no_pending_responses()
