"""AWS failures as one-line explanations.

A preflight must say what it could not check and why, in words an infrastructure engineer
acts on (which IAM action is missing, which credentials expired), never with a traceback.
botocore is imported inside `explain` so this module stays importable without it.
"""

from __future__ import annotations

from planner.aws.deadline import DeadlineExceeded

THROTTLED = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "RequestLimitExceeded",
        "TooManyRequestsException",
        "RequestThrottled",
        "RequestThrottledException",
        "SlowDown",
        "PriorRequestNotComplete",
    }
)
DENIED = frozenset(
    {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "UnauthorizedAccess", "OptInRequired"}
)
REJECTED_CREDENTIALS = frozenset(
    {
        "AuthFailure",
        "InvalidClientTokenId",
        "UnrecognizedClientException",
        "SignatureDoesNotMatch",
        "ExpiredToken",
        "ExpiredTokenException",
        "RequestExpired",
        "InvalidSignatureException",
        "IncompleteSignature",
    }
)
NOT_IN_REGION = "not available in the current region"
SERVICE_NAMES = {"ec2": "EC2", "servicequotas": "Service Quotas", "pricing": "the AWS Price List Query API"}

NO_CREDENTIALS = (
    "no AWS credentials found (boto3 looks in AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, "
    "~/.aws/credentials and config, SSO and instance roles)"
)


NOT_AWS = (
    "the endpoint answered, but not as AWS does (no request id, or a body that is not the API's): "
    "a captive portal, proxy or firewall page?"
)


MAX_AWS_TEXT = 300  # characters of an error message AWS (or whatever answered) sent, quoted in a line


def cut(text: object, limit: int = MAX_AWS_TEXT) -> str:
    """Text an endpoint sent (an error message), on one line and at most about `limit` characters:
    an answer is untrusted input, and a megabyte of it is not a line (docs/security.md)."""
    from planner.core.text.safe import one_line

    s = str(text)
    if len(s) <= limit:
        return one_line(s)
    return one_line(s[:limit]) + f"... ({len(s):,} characters, cut)"


class AwsCallError(Exception):
    """An AWS call that failed for a reason other than "not found"; `message` is one line."""

    def __init__(self, action: str, message: str, code: str | None = None):
        super().__init__(message)
        self.action = action
        self.message = message
        self.code = code


def error_code(exc: BaseException) -> str | None:
    """The AWS error code of a botocore ClientError, else None."""
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        return (response.get("Error") or {}).get("Code")
    return None


def explain(exc: BaseException, action: str, region: str | None = None) -> AwsCallError:
    """Turn a botocore exception raised by `action` (an IAM action such as ec2:DescribeSubnets) into one line."""
    from botocore import exceptions as be

    where = f" in {region}" if region else ""
    if isinstance(exc, (be.NoCredentialsError, be.PartialCredentialsError)):
        return AwsCallError(action, NO_CREDENTIALS, "NoCredentials")
    if isinstance(exc, be.ProfileNotFound):
        return AwsCallError(action, f"{cut(exc)}; check --profile or AWS_PROFILE", "ProfileNotFound")
    if isinstance(exc, (be.ConnectTimeoutError, be.ReadTimeoutError)):
        return AwsCallError(
            action, f"{action}{where} timed out ({cut(exc)}); check the network or proxy and run again", "Timeout"
        )
    if isinstance(exc, be.EndpointConnectionError):
        return AwsCallError(
            action,
            f"could not reach the AWS endpoint for {action}{where} ({cut(exc)}); check the network, proxy and region",
            "EndpointConnectionError",
        )
    if isinstance(exc, (be.UnknownEndpointError, be.NoRegionError)):
        return AwsCallError(action, f"{action} has no endpoint{where} ({cut(exc)})", "NoEndpoint")
    if isinstance(exc, be.ClientError):
        code = error_code(exc) or "Unknown"
        text = cut(str((exc.response.get("Error") or {}).get("Message") or "").strip())
        code = cut(code, 64)
        if code in THROTTLED:
            return AwsCallError(action, f"AWS throttled {action}{where} ({code}) after retries; run again later", code)
        if code in DENIED:
            return AwsCallError(
                action,
                f"access denied to {action}{where} ({code}); grant it to the role or user (preflight docs: IAM policy)",
                code,
            )
        if code in REJECTED_CREDENTIALS:
            return AwsCallError(
                action,
                f"AWS rejected the credentials calling {action} ({code}); refresh them "
                "(for example aws sso login) or pass --profile",
                code,
            )
        if NOT_IN_REGION in text.lower():
            prefix = action.split(":", 1)[0]
            service = SERVICE_NAMES.get(prefix, prefix)
            return AwsCallError(action, f"{service} is not available{where} ({code})", code)
        return AwsCallError(
            action, f"{action}{where} failed: {code}: {text}" if text else f"{action}{where} failed: {code}", code
        )
    if isinstance(exc, NotAwsAnswer) or type(exc).__name__ == "ResponseParserError":
        return AwsCallError(action, f"{action}{where}: {NOT_AWS}", "NotAws")
    if isinstance(exc, DeadlineExceeded):
        return AwsCallError(action, f"{action}{where}: {cut(exc)}", "Deadline")
    if isinstance(exc, be.BotoCoreError):
        return AwsCallError(action, f"{action}{where} failed: {cut(exc)}", type(exc).__name__)
    return AwsCallError(action, f"{action}{where} failed: {type(exc).__name__}: {cut(exc)}", type(exc).__name__)


class NotAwsAnswer(Exception):
    """An HTTP 2xx answer without an AWS request id: not AWS speaking (see `require_aws_answer`)."""


def require_aws_answer(http_response: object = None, parsed: object = None, **_: object) -> None:
    """botocore `after-call` hook: refuse a success that AWS did not send.

    Every AWS API answer carries a request id (the x-amzn-RequestId header, or
    `<requestId>` in EC2's XML); a captive portal's HTTP 200 page has none, and botocore
    parses it to an empty result, which would read as "not offered" or "does not exist".
    """
    status = getattr(http_response, "status_code", None)
    if status is None or not 200 <= status < 300 or not isinstance(parsed, dict):
        return
    if not (parsed.get("ResponseMetadata") or {}).get("RequestId"):
        raise NotAwsAnswer(NOT_AWS)
