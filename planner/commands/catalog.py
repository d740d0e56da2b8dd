"""`planner catalog`: the instance types planner knows, with their figures and sources."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("catalog", help="list the instance type catalogue and its sources")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="table (people: fitted to the terminal, notes explain the columns) or json (every figure with its "
                        "source); default: table")
    p.set_defaults(run=run)


def to_json() -> dict[str, Any]:
    from planner.catalogue import PRECISIONS, load

    cat = load()
    types = []
    for t in cat.instance_types.values():
        types.append({
            "instance_type": t.name,
            "family": t.family,
            "accelerator": t.accelerator.name,
            "accelerator_count": t.accelerator_count,
            "accelerator_memory_gib_each": t.accelerator.memory_gib,
            "neuron_cores": t.neuron_cores,
            "ultraserver_size": t.ultraserver_size,
            "vcpus": t.vcpus,
            "memory_gib": t.memory_gib,
            "network_cards": t.network_cards,
            "network_bandwidth_gbps": t.network_bandwidth_gbps,
            "efa": {"supported": t.efa_supported, "generation": t.efa_generation},
            "max_network_interfaces": t.max_network_interfaces,
            "local_nvme": {"disks": t.local_nvme_disks, "disk_gb": t.local_nvme_disk_gb},
            "spot": t.spot,
            "capacity_block": t.capacity_block,
            "regions": list(t.regions),
            "peak_pflops": {p: t.peak_pflops(p) for p in PRECISIONS},
            "source": t.source,
            "field_sources": dict(sorted(t.field_sources.items())),
            "notes": t.notes,
        })
    return {
        "instance_types": types,
        "accelerators": [
            {"name": a.name, "vendor": a.vendor, "memory_gib": a.memory_gib, "neuron_cores": a.neuron_cores,
             "peak_tflops": dict(a.peak_tflops), "source": a.source, "notes": a.notes}
            for a in cat.accelerators.values()
        ],
        "announced": [
            {"id": a.id, "name": a.name, "accelerator": a.accelerator.name, "general_availability": a.general_availability,
             "instance_type_names": "not confirmed", "source": a.source, "notes": a.notes}
            for a in cat.announced.values()
        ],
        "sources": [{"id": s.id, "title": s.title, "url": s.url, "as_of": s.as_of} for s in cat.sources.values()],
    }


def run(args: argparse.Namespace) -> int:
    from planner.fileio import emit

    data = to_json()
    if args.format == "json":
        from planner.report.json_report import dumps

        emit(dumps(data))
        return 0
    from planner.report.text import grid, human, num

    rows = []
    for t in data["instance_types"]:
        pk = t["peak_pflops"]
        rows.append((
            t["instance_type"], f"{t['accelerator_count']} {t['accelerator']}", num(t["accelerator_memory_gib_each"]),
            t["ultraserver_size"] or "-", t["vcpus"], num(t["memory_gib"]), f"{t['network_cards']}/{num(t['network_bandwidth_gbps'])}",
            (f"v{t['efa']['generation']}" if t["efa"]["generation"] else "yes") if t["efa"]["supported"] else "no", num(pk["bf16_dense"], 2), num(pk["fp8_dense"], 2),
            num(pk["fp8_sparse"], 2), ", ".join(["spot"] * bool(t["spot"]) + ["block"] * bool(t["capacity_block"])) or "-",
        ))
    lines = grid(("type", "accelerators", "GiB each", "per US", "vCPU", "host GiB", "cards/Gbps", "EFA",
                  "BF16 PF", "FP8 PF", "FP8 sparse PF", "also as"), rows, right=(2, 4, 5, 8, 9, 10))
    lines.append("")
    lines.append("PF: peak PFLOPS per instance, dense unless marked sparse. per US: instances per UltraServer; "
                 "also as: spot, block (EC2 Capacity Blocks for ML). Sources: `planner catalog --format json`.")
    for a in data["announced"]:
        acc = next(x for x in data["accelerators"] if x["name"] == a["accelerator"])
        lines.append(f"Announced, not declarable: {a['name']} ({a['accelerator']}: {num(acc['peak_tflops']['bf16_dense'])} BF16 / "
                     f"{num(acc['peak_tflops']['fp8_dense'])} FP8 dense TFLOPS per chip, {num(acc['memory_gib'])} GiB); "
                     f"GA {a['general_availability']}, EC2 instance type names not confirmed.")
    lines += ["", f"{len(data['instance_types'])} instance types; {len(data['announced'])} announced, not declarable"]
    emit(human(lines))
    return 0
