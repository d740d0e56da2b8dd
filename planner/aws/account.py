"""What preflight asks the AWS account, each question asked once per run.

`Account` wraps botocore clients (made by `Clients`, or injected by tests: moto or a
Stubber) and answers in plain Python values. "Does not exist" is an answer (None); every
other failure becomes `AwsCallError` with a one-line explanation, remembered so that a
denied or throttled call is not repeated by every check that needs it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from msgspec import Struct

from planner.aws import deadline
from planner.aws.errors import NOT_IN_REGION, AwsCallError, NotAwsAnswer, error_code, explain, require_aws_answer

USER_AGENT = "planner-preflight"
UNREACHABLE = ("EndpointConnectionError", "Timeout", "NotAws", "Deadline")
# Each HTTP attempt: 5 s to connect, 15 s to read; at most 4 attempts in botocore's
# "standard" retry mode, which backs off on throttling and has a retry quota of its own.
# The command's overall limit is `planner.aws.deadline` (--aws-timeout).
CONNECT_TIMEOUT = 5
READ_TIMEOUT = 15
MAX_ATTEMPTS = 4
T = TypeVar("T")
NOT_FOUND = {
    "ec2:DescribeInstanceTypes": {"InvalidInstanceType"},
    "ec2:DescribeCapacityReservations": {
        "InvalidCapacityReservationId.NotFound",
        "InvalidCapacityReservationId.Malformed",
    },
    "ec2:DescribeVpcs": {"InvalidVpcID.NotFound", "InvalidVpcID.Malformed"},
    "ec2:DescribeSubnets": {"InvalidSubnetID.NotFound", "InvalidSubnetID.Malformed"},
}


class Clients:
    """botocore clients from boto3's normal credential chain (or `profile`), one per service and region."""

    def __init__(self, profile: str | None = None, session: Any = None):
        if session is None:
            import boto3

            session = boto3.Session(profile_name=profile)  # raises ProfileNotFound for an unknown profile
        self.session = session
        self._clients: dict[tuple[str, str], Any] = {}

    def has_credentials(self) -> bool:
        return self.session.get_credentials() is not None

    def client(self, service: str, region: str) -> Any:
        key = (service, region)
        if key not in self._clients:
            from botocore.config import Config

            config = Config(
                retries={"mode": "standard", "total_max_attempts": MAX_ATTEMPTS},
                connect_timeout=CONNECT_TIMEOUT,
                read_timeout=READ_TIMEOUT,
                user_agent_extra=USER_AGENT,
            )
            client = self.session.client(service, region_name=region, config=config)
            client.meta.events.register("after-call", require_aws_answer)
            self._clients[key] = client
        return self._clients[key]


class Quota(Struct, frozen=True):
    code: str
    name: str
    value: float
    applied: bool  # False when only the AWS default could be read


class Account:
    """Cached answers from EC2 and Service Quotas, per region."""

    def __init__(self, client: Callable[[str, str], Any]):
        self._client = client
        self._answers: dict[tuple[Any, ...], Any] = {}
        self._unreachable: dict[tuple[str, str], AwsCallError] = {}  # (service, region) that could not be reached

    def _ask(self, key: tuple[Any, ...], action: str, region: str, call: Callable[[], T]) -> T:
        endpoint = (action.split(":", 1)[0], region)
        if key not in self._answers and ("*", "*") in self._unreachable:
            raise self._unreachable[("*", "*")]  # the command's deadline has passed: no more calls
        if key not in self._answers and endpoint in self._unreachable:
            raise self._unreachable[endpoint]  # do not wait through the retries again for the same endpoint
        if key not in self._answers:
            from botocore.exceptions import BotoCoreError, ClientError
            from botocore.parsers import ResponseParserError

            try:
                with deadline.calling():
                    self._answers[key] = call()
            except ClientError as exc:
                if error_code(exc) in NOT_FOUND.get(action, ()):
                    self._answers[key] = None
                else:
                    self._answers[key] = explain(exc, action, region)
            except (BotoCoreError, ResponseParserError, NotAwsAnswer, deadline.DeadlineExceeded) as exc:
                self._answers[key] = explain(exc, action, region)
            if isinstance(self._answers[key], AwsCallError) and self._answers[key].code == "Deadline":
                self._unreachable[("*", "*")] = self._answers[key]
        answer = self._answers[key]
        if isinstance(answer, AwsCallError):
            if answer.code in UNREACHABLE:
                self._unreachable[endpoint] = answer
            raise answer
        # what call() answered for this key (None only for NOT_FOUND's actions, whose calls answer None too)
        return cast(T, answer)

    def offered_zones(self, region: str, instance_type: str) -> frozenset[str]:
        """Availability Zones of `region` where `instance_type` is offered (DescribeInstanceTypeOfferings)."""

        def call() -> frozenset[str]:
            pages = (
                self._client("ec2", region)
                .get_paginator("describe_instance_type_offerings")
                .paginate(
                    LocationType="availability-zone", Filters=[{"Name": "instance-type", "Values": [instance_type]}]
                )
            )
            return frozenset(o["Location"] for page in pages for o in page.get("InstanceTypeOfferings", []))

        return self._ask(("offerings", region, instance_type), "ec2:DescribeInstanceTypeOfferings", region, call)

    def _one(self, region: str, action: str, method: str, ids: str, results: str, ident: str) -> dict[str, Any] | None:
        """The single record an EC2 Describe* call returns for one id, or None when it does not exist."""

        def call() -> dict[str, Any] | None:
            found = getattr(self._client("ec2", region), method)(**{ids: [ident]}).get(results, [])
            return found[0] if found else None

        return self._ask((method, region, ident), action, region, call)

    def instance_type(self, region: str, instance_type: str) -> dict[str, Any] | None:
        """DescribeInstanceTypes' record for one type, or None when the region does not know it."""
        return self._one(
            region,
            "ec2:DescribeInstanceTypes",
            "describe_instance_types",
            "InstanceTypes",
            "InstanceTypes",
            instance_type,
        )

    def quota(self, region: str, code: str) -> Quota:
        """The applied value of an EC2 quota, else its AWS default (GetServiceQuota answers only changed quotas)."""
        client = self._client("service-quotas", region)

        def applied() -> Quota | None:
            try:
                q = client.get_service_quota(ServiceCode="ec2", QuotaCode=code)["Quota"]
            except client.exceptions.NoSuchResourceException as exc:
                if NOT_IN_REGION in str(exc).lower():
                    raise
                return None
            return Quota(code, q.get("QuotaName", code), float(q["Value"]), True)

        found = self._ask(("quota", region, code), "servicequotas:GetServiceQuota", region, applied)
        if found is not None:
            return found

        def default() -> Quota:
            q = client.get_aws_default_service_quota(ServiceCode="ec2", QuotaCode=code)["Quota"]
            return Quota(code, q.get("QuotaName", code), float(q["Value"]), False)

        return self._ask(("default-quota", region, code), "servicequotas:GetAWSDefaultServiceQuota", region, default)

    def reservation(self, region: str, reservation_id: str) -> dict[str, Any] | None:
        return self._one(
            region,
            "ec2:DescribeCapacityReservations",
            "describe_capacity_reservations",
            "CapacityReservationIds",
            "CapacityReservations",
            reservation_id,
        )

    def zones(self, region: str) -> dict[str, dict[str, Any]]:
        """Every zone of `region` by name, Local Zones the account has not opted in to included
        (DescribeAvailabilityZones with AllAvailabilityZones): each with its GroupName and OptInStatus."""

        def call() -> dict[str, dict[str, Any]]:
            found = self._client("ec2", region).describe_availability_zones(AllAvailabilityZones=True)
            return {z["ZoneName"]: z for z in found.get("AvailabilityZones", []) if isinstance(z.get("ZoneName"), str)}

        return self._ask(("zones", region), "ec2:DescribeAvailabilityZones", region, call)

    def vpc(self, region: str, vpc_id: str) -> dict[str, Any] | None:
        return self._one(region, "ec2:DescribeVpcs", "describe_vpcs", "VpcIds", "Vpcs", vpc_id)

    def subnet(self, region: str, subnet_id: str) -> dict[str, Any] | None:
        return self._one(region, "ec2:DescribeSubnets", "describe_subnets", "SubnetIds", "Subnets", subnet_id)
