"""Trn2 UltraServers are bought by UltraServer: the estimate gives UltraServers and the UltraServer-hour."""

from __future__ import annotations

from cost_support import make_book

from planner.core.cost import estimate
from planner.core.input.stack_files import load_stack


def test_ultraserver_line_item_counts_ultraservers(stack_file) -> None:
    """EC2 API reference, DescribeCapacityBlockOfferings: "UltraserverCount: The number of EC2
    UltraServers in the offerings." Four trn2u.48xlarge make one UltraServer (Neuron docs)."""
    path = stack_file("""\
availability_zone: us-east-2b
node_groups:
  - {name: us, instance_type: trn2u.48xlarge, ultraservers: 3, purchase: capacity-block}
schedule: {hours: 48}
""")
    item, root = estimate(load_stack(str(path)), make_book()).line_items
    assert root.to_json()["instances"] == 12  # a root volume per instance, not per UltraServer
    j = item.to_json()
    assert (j["instances"], j["ultraservers"], j["usd_per_ultraserver_hour"]) == (12, 3, 32)  # 4 x the test book's 8.0
    assert j["total_usd"] == 12 * 48 * 8.0
