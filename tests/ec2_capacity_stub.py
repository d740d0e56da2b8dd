"""A local stand-in for EC2's DescribeCapacityBlockOfferings, on 127.0.0.1, answering in EC2's XML.

moto does not implement the Capacity Block calls, so `planner capacity` is run against this
server through `AWS_ENDPOINT_URL_EC2`, the standard SDK setting, exactly as a user points
planner at a local endpoint. The region of each request is read from its SigV4 signature
(every region shares the one endpoint), and each region answers as `Scenario` says:
offerings per asked duration, an AWS error, or a page that is not AWS's API. Used by
tests/test_capacity_endpoint.py and by tools/doc_examples.py for docs/tasks/find-capacity.md.
"""

from __future__ import annotations

import contextlib
import re
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.sax.saxutils import escape

from msgspec import Struct, field

NS = "http://ec2.amazonaws.com/doc/2016-11-15/"
SCOPE = re.compile(r"Credential=[^/]+/\d{8}/([a-z0-9-]+)/ec2/aws4_request")


class Offer(Struct, frozen=True):
    """One offering as the endpoint lists it for a request of `asked` hours and `count` instances."""

    asked: int
    count: int
    offering_id: str
    zone: str
    start: str  # 2026-12-20T07:00:00Z
    end: str
    fee: str
    instance_type: str = "p5en.48xlarge"
    zone_type: str = "availability-zone"


class Scenario(Struct):
    """Per region: offers, or an error (code, HTTP status), or `html` (a captive portal's page)."""

    offers: dict[str, list[Offer]] = field(default_factory=dict)
    errors: dict[str, tuple[str, int]] = field(default_factory=dict)
    html: set[str] = field(default_factory=set)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)


def _minutes(start: str, end: str) -> int:
    import datetime as dt

    a, b = (dt.datetime.fromisoformat(x.replace("Z", "+00:00")) for x in (start, end))
    return int((b - a).total_seconds() // 60)


def offerings_xml(offers: list[Offer]) -> str:
    items = []
    for o in offers:
        m = _minutes(o.start, o.end)
        items.append(
            "<item>"
            f"<capacityBlockOfferingId>{escape(o.offering_id)}</capacityBlockOfferingId>"
            f"<instanceType>{escape(o.instance_type)}</instanceType>"
            f"<availabilityZone>{escape(o.zone)}</availabilityZone>"
            f"<instanceCount>{o.count}</instanceCount>"
            f"<startDate>{o.start.replace('Z', '.000Z')}</startDate><endDate>{o.end.replace('Z', '.000Z')}</endDate>"
            f"<capacityBlockDurationHours>{m // 60}</capacityBlockDurationHours>"
            f"<capacityBlockDurationMinutes>{m % 60}</capacityBlockDurationMinutes>"
            f"<upfrontFee>{escape(o.fee)}</upfrontFee><currencyCode>USD</currencyCode><tenancy>default</tenancy>"
            f"<zoneType>{escape(o.zone_type)}</zoneType>"
            "</item>"
        )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<DescribeCapacityBlockOfferingsResponse xmlns="{NS}">'
        "<requestId>7a62c49f-347e-4fc4-9331-6e8eEXAMPLE</requestId>"
        f"<capacityBlockOfferingSet>{''.join(items)}</capacityBlockOfferingSet>"
        "</DescribeCapacityBlockOfferingsResponse>"
    )


def error_xml(code: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error>'
        f"<Code>{escape(code)}</Code><Message>You are not authorized to perform this operation.</Message>"
        "</Error></Errors><RequestID>7a62c49f-347e-4fc4-9331-6e8eEXAMPLE</RequestID></Response>"
    )


def handler(scenario: Scenario) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet: the test reads the answers, not a log
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
            params = {k: v[0] for k, v in urllib.parse.parse_qs(body).items()}
            m = SCOPE.search(self.headers.get("Authorization") or "")
            region = m.group(1) if m else "?"
            scenario.requests.append((region, params))
            if region in scenario.html:
                self._send(200, "<html><body>Sign in to the guest network</body></html>", "text/html")
            elif region in scenario.errors:
                code, status = scenario.errors[region]
                self._send(status, error_xml(code))
            elif params.get("Action") != "DescribeCapacityBlockOfferings":
                self._send(400, error_xml("InvalidAction"))
            else:
                asked, count = int(params.get("CapacityDurationHours", 0)), int(params.get("InstanceCount", 0))
                self._send(
                    200,
                    offerings_xml(
                        [o for o in scenario.offers.get(region, []) if o.asked == asked and o.count == count]
                    ),
                )

        def _send(self, status: int, text: str, kind: str = "text/xml;charset=UTF-8") -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextlib.contextmanager
def serve(scenario: Scenario) -> Iterator[str]:
    """The endpoint's URL while the block runs (a thread of this process)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(scenario))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def three_regions() -> Scenario:
    """16 x p5en.48xlarge for 336 h: us-east-1 cheapest but late, us-east-2 in time, us-west-2 early and dear,
    eu-north-1 denied (the find-capacity page's example)."""
    return Scenario(
        offers={
            "us-east-1": [
                Offer(
                    336,
                    16,
                    "cb-0e1a4c2f9d3b7a615",
                    "us-east-1a",
                    "2027-01-10T09:30:00Z",
                    "2027-01-24T11:30:00Z",
                    "280064.00",
                )
            ],
            "us-east-2": [
                Offer(
                    336,
                    16,
                    "cb-0e2b7d1c5a9f3e826",
                    "us-east-2b",
                    "2026-12-20T07:00:00Z",
                    "2027-01-03T11:30:00Z",
                    "329472.00",
                ),
                Offer(
                    504,
                    16,
                    "cb-0e2c3f8a6b1d9e437",
                    "us-east-2c",
                    "2026-12-14T11:30:00Z",
                    "2027-01-04T11:30:00Z",
                    "469504.00",
                ),
            ],
            "us-west-2": [
                Offer(
                    336,
                    16,
                    "cb-0e3a9b4d2c7f1e058",
                    "us-west-2a",
                    "2026-12-05T05:00:00Z",
                    "2026-12-19T11:30:00Z",
                    "410176.00",
                )
            ],
        },
        errors={"eu-north-1": ("UnauthorizedOperation", 403)},
    )
