"""`planner catalog`: the instance types planner knows, with their figures and sources."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser("catalog", help="list the instance type catalogue and its sources")
    p.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="table (people: fitted to the terminal, notes explain the columns) or json (every figure with its "
        "source); default: table",
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="list every instance type AWS's DescribeInstanceTypes data lists (about 1,400, from the generated "
        "table), not only the curated training types; default: the training types",
    )
    p.set_defaults(run=run)


def to_json(every: bool = False) -> dict[str, Any]:
    """The catalogue as data: the curated training types, or with `every` each type AWS lists (curated first
    win: a type in both is shown with its curated figures)."""
    from planner.core.catalogue.instance_types import PRECISIONS, generated_as_of, load

    cat = load()
    types = []
    listed = [cat.spec(n) for n in cat.all_names()] if every else list(cat.instance_types.values())
    for t in listed:
        types.append(
            {
                "instance_type": t.name,
                "family": t.family,
                "curated": t.curated,
                "accelerator": t.accelerator.name if t.accelerator is not None else None,
                "accelerator_vendor": t.accelerator.vendor if t.accelerator is not None else None,
                "accelerator_count": t.accelerator_count,
                "accelerator_memory_gib_each": t.accelerator.memory_gib if t.accelerator is not None else None,
                "neuron_cores": t.neuron_cores,
                "ultraserver_types": [u.name for u in cat.ultraservers_of(t.name)],
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
                "capacity_block_regions": list(t.capacity_block_regions),
                "capacity_block_local_zones": [
                    {"zone": z.zone, "region": z.region, "opt_in_required": z.opt_in}
                    for z in t.capacity_block_local_zones
                ],
                "peak_pflops": {p: t.peak_pflops(p) for p in PRECISIONS},
                "source": t.source,
                "field_sources": dict(sorted(t.field_sources.items())),
                "notes": t.notes,
            }
        )
    out: dict[str, Any] = {"scope": "every type AWS lists" if every else "training types (curated)"}
    if every:
        out["generated_table_as_of"] = generated_as_of()
    return out | {
        "instance_types": types,
        "accelerators": [
            {
                "name": a.name,
                "vendor": a.vendor,
                "memory_gib": a.memory_gib,
                "neuron_cores": a.neuron_cores,
                "peak_tflops": dict(a.peak_tflops),
                "source": a.source,
                "notes": a.notes,
            }
            for a in cat.accelerators.values()
        ],
        "ultraserver_types": [
            {
                "ultraserver_type": u.name,
                "name": u.title,
                "member_instance_type": u.member_instance_type,
                "declarable": u.declarable,
                "members": u.members,
                "accelerator": u.accelerator.name,
                "accelerators": u.accelerators,
                "accelerator_memory_gib": round(u.accelerator_memory_gib, 3),
                "interconnect": u.interconnect,
                "peak_pflops": {p: _r(u.peak_pflops(p)) for p in PRECISIONS},
                "purchase": list(u.purchase),
                "regions": list(u.regions),
                "local_zones": [
                    {"zone": z.zone, "region": z.region, "opt_in_required": z.opt_in} for z in u.local_zones
                ],
                "general_availability": u.general_availability,
                "source": u.source,
                "field_sources": dict(sorted(u.field_sources.items())),
                "notes": u.notes,
            }
            for u in cat.ultraserver_types.values()
        ],
        "sources": [{"id": s.id, "title": s.title, "url": s.url, "as_of": s.as_of} for s in cat.sources.values()],
    }


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def run(args: argparse.Namespace) -> int:
    from planner.core.reading.bounded_files import emit

    data = to_json(args.all)
    if args.format == "json":
        from planner.core.render.json_report import dumps

        emit(dumps(data))
        return 0
    from planner.core.text.numbers import num
    from planner.core.text.terminal import grid, human

    rows = []
    for t in data["instance_types"]:
        pk = t["peak_pflops"]
        rows.append(
            (
                t["instance_type"],
                f"{t['accelerator_count']} {t['accelerator']}" if t["accelerator"] else "-",
                num(t["accelerator_memory_gib_each"]) if t["accelerator"] else "-",
                "/".join(
                    str(next(u["members"] for u in data["ultraserver_types"] if u["ultraserver_type"] == n))
                    for n in t["ultraserver_types"]
                )
                or "-",
                t["vcpus"],
                num(t["memory_gib"]),
                f"{t['network_cards'] if t['network_cards'] is not None else '?'}/{num(t['network_bandwidth_gbps'])}",
                (f"v{t['efa']['generation']}" if t["efa"]["generation"] else "yes") if t["efa"]["supported"] else "no",
                num(pk["bf16_dense"], 2),
                num(pk["fp8_dense"], 2),
                num(pk["fp8_sparse"], 2),
                ", ".join(["spot"] * bool(t["spot"]) + ["block"] * bool(t["capacity_block"])) or "-",
            )
        )
    lines = grid(
        (
            "type",
            "accelerators",
            "GiB each",
            "per US",
            "vCPU",
            "host GiB",
            "cards/Gbps",
            "EFA",
            "BF16 PF",
            "FP8 PF",
            "FP8 sparse PF",
            "also as",
        ),
        rows,
        right=(2, 4, 5, 8, 9, 10),
    )
    lines.append("")
    lines.append(
        "PF: peak PFLOPS per instance, dense unless marked sparse. per US: instances per UltraServer "
        "(of each UltraServer type below); also as: spot, block (EC2 Capacity Blocks for ML); ?: not published. "
        "Sources: `planner catalog --format json`."
    )
    lines.append("")
    urows = []
    for u in data["ultraserver_types"]:
        where = (
            ", ".join(
                u["regions"]
                + [
                    f"{z['zone']} ({z['region']}, opt-in)" if z["opt_in_required"] else z["zone"]
                    for z in u["local_zones"]
                ]
            )
            or "-"
        )
        urows.append(
            (
                u["ultraserver_type"],
                u["member_instance_type"] or "not in the EC2 API yet",
                u["members"],
                f"{u['accelerators']} {u['accelerator']}",
                num(u["peak_pflops"]["bf16_dense"], 1),
                num(u["peak_pflops"]["fp8_dense"], 1),
                u["interconnect"],
                where,
            )
        )
    lines += grid(
        ("UltraServer type", "member", "members", "accelerators", "BF16 PF", "FP8 PF", "interconnect", "sold in"),
        urows,
        right=(2, 4, 5),
    )
    lines.append("")
    lines.append(
        "UltraServers are booked whole through Capacity Blocks (one block per UltraServer); declare them with "
        "`ultraservers: N`. A type whose member is not in the EC2 API yet is listed, not declarable."
    )
    listed = sum(1 for u in data["ultraserver_types"] if not u["declarable"])
    if not args.all:
        lines += [
            "",
            "These are the curated training types; `planner catalog --all` lists every type AWS lists (planned and "
            "priced too, with DescribeInstanceTypes' figures and no peak FLOPS unless a curated chip names them).",
        ]
    lines += [
        "",
        f"{len(data['instance_types'])} instance types; {len(data['ultraserver_types'])} UltraServer types "
        f"({listed} not declarable yet)",
    ]
    emit(human(lines))
    return 0
