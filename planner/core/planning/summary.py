"""What a declared cluster adds up to: instances, chips, memory, bandwidth, peak compute.

Every figure is arithmetic on catalogue entries, so `planner plan` never prints a number
that has no source.
"""

from __future__ import annotations

from planner.core.catalogue.instance_types import PRECISIONS, Catalogue
from planner.core.document.summary_section import GroupSummary, LustreSummary, PeakPflops, Summary
from planner.core.model.cluster import Cluster


def _r(x: float) -> float | int:
    """Round for stable output; integers stay integers."""
    x = round(x, 3)
    return int(x) if float(x).is_integer() else x


def summarize(cluster: Cluster, cat: Catalogue) -> Summary:
    """The cluster's totals as the document's summary section, rounded for stable output."""
    groups = []
    totals = {
        "instances": 0,
        "ultraservers": 0,
        "accelerators": 0,
        "neuron_cores": 0,
        "vcpus": 0,
        "accelerator_memory_gib": 0.0,
        "efa_bandwidth_gbps": 0,
    }
    peak = {p: 0.0 for p in PRECISIONS}
    peak_known = {p: True for p in PRECISIONS}
    for g in cluster.node_groups:
        t = cat.spec(g.instance_type)
        ultra = cat.ultraserver_of(g)
        us = cat.ultraservers_in(g)  # booked whole: 6 of 4-member UltraServers occupy 2
        acc = g.count * t.accelerator_count
        efa_bw = g.count * t.network_bandwidth_gbps if g.efa and t.efa_supported else 0
        totals["instances"] += g.count
        totals["ultraservers"] += us
        totals["accelerators"] += acc
        totals["neuron_cores"] += g.count * (t.neuron_cores or 0)
        totals["vcpus"] += g.count * t.vcpus
        totals["accelerator_memory_gib"] += g.count * t.accelerator_memory_gib
        totals["efa_bandwidth_gbps"] += efa_bw
        for p in PRECISIONS:
            v = t.peak_pflops(p)
            if t.accelerator is None:
                continue  # a type without accelerators adds no accelerator FLOPS (zero, known)
            if v is None:
                peak_known[p] = False
            else:
                peak[p] += g.count * v
        groups.append(
            GroupSummary(
                name=g.name,
                instance_type=g.instance_type,
                purchase=g.purchase,
                instances=g.count,
                ultraservers=us,
                ultraserver_type=ultra.name if ultra else None,
                accelerators=acc,
                accelerator=t.accelerator_name,
                availability_zone=g.availability_zone,
                efa=g.efa,
            )
        )
    fs = cluster.lustre
    pflops = {p: (_r(peak[p]) if peak_known[p] else None) for p in PRECISIONS}
    return Summary(
        instances=int(totals["instances"]),
        ultraservers=int(totals["ultraservers"]),
        accelerators=int(totals["accelerators"]),
        neuron_cores=int(totals["neuron_cores"]),
        vcpus=int(totals["vcpus"]),
        accelerator_memory_gib=_r(totals["accelerator_memory_gib"]),
        efa_bandwidth_gbps=totals["efa_bandwidth_gbps"],
        peak_pflops=PeakPflops(pflops["bf16_dense"], pflops["fp8_dense"], pflops["fp8_sparse"]),
        placement_group=cluster.placement,
        lustre=None
        if fs is None
        else LustreSummary(
            fs.deployment_type,
            fs.storage_capacity_gib,
            fs.per_unit_storage_throughput,
            fs.availability_zone,
            *fs.tiering_shown,
        ),
        node_groups=tuple(groups),
    )
