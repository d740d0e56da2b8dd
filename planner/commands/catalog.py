"""`planner catalog`: the instance types planner knows, with their figures and sources."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planner.core.catalogue.instance_types import Catalogue, InstanceType
    from planner.core.catalogue.shipped_data import LocalZone
    from planner.core.document.catalogue_listing import CatalogueListing


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


def listed(cat: Catalogue, every: bool = False) -> list[InstanceType]:
    """The types listed: the curated training types, or with `every` each type AWS lists (curated first win: a
    type in both is shown with its curated figures)."""
    return [cat.spec(n) for n in cat.all_names()] if every else list(cat.instance_types.values())


def listing(every: bool = False) -> CatalogueListing:
    """The catalogue as data (what `--format json` writes: the codec writes it, `codec.load(CatalogueListing,
    data)` reads it back): the types `listed` gives, the accelerators, UltraServer types and sources."""
    from planner.core.catalogue.instance_types import PRECISIONS, generated_as_of, load
    from planner.core.document.catalogue_listing import (
        CatalogueListing,
        ListedAccelerator,
        ListedEfa,
        ListedInstanceType,
        ListedNvme,
        ListedSource,
        ListedUltraServerType,
        ListedZone,
    )

    def zones(local_zones: tuple[LocalZone, ...]) -> tuple[ListedZone, ...]:
        return tuple(ListedZone(z.zone, z.region, z.opt_in) for z in local_zones)

    cat = load()
    types = tuple(
        ListedInstanceType(
            instance_type=t.name,
            family=t.family,
            curated=t.curated,
            accelerator=t.accelerator.name if t.accelerator is not None else None,
            accelerator_vendor=t.accelerator.vendor if t.accelerator is not None else None,
            accelerator_count=t.accelerator_count,
            accelerator_memory_gib_each=t.accelerator.memory_gib if t.accelerator is not None else None,
            neuron_cores=t.neuron_cores,
            ultraserver_types=tuple(u.name for u in cat.ultraservers_of(t.name)),
            vcpus=t.vcpus,
            memory_gib=t.memory_gib,
            network_cards=t.network_cards,
            network_bandwidth_gbps=t.network_bandwidth_gbps,
            efa=ListedEfa(t.efa_supported, t.efa_generation),
            max_network_interfaces=t.max_network_interfaces,
            local_nvme=ListedNvme(t.local_nvme_disks, t.local_nvme_disk_gb),
            spot=t.spot,
            capacity_block=t.capacity_block,
            regions=t.regions,
            capacity_block_regions=t.capacity_block_regions,
            capacity_block_local_zones=zones(t.capacity_block_local_zones),
            peak_pflops=tuple((p, t.peak_pflops(p)) for p in PRECISIONS),
            source=t.source,
            field_sources=tuple(sorted(t.field_sources.items())),
            notes=t.notes,
        )
        for t in listed(cat, every)
    )
    accelerators = tuple(
        ListedAccelerator(
            a.name, a.vendor, a.memory_gib, a.neuron_cores, tuple(a.peak_tflops.items()), a.source, a.notes
        )
        for a in cat.accelerators.values()
    )
    ultraservers = tuple(
        ListedUltraServerType(
            ultraserver_type=u.name,
            name=u.title,
            member_instance_type=u.member_instance_type,
            declarable=u.declarable,
            members=u.members,
            accelerator=u.accelerator.name,
            accelerators=u.accelerators,
            accelerator_memory_gib=round(u.accelerator_memory_gib, 3),
            interconnect=u.interconnect,
            peak_pflops=tuple((p, _r(u.peak_pflops(p))) for p in PRECISIONS),
            purchase=u.purchase,
            regions=u.regions,
            local_zones=zones(u.local_zones),
            general_availability=u.general_availability,
            source=u.source,
            field_sources=tuple(sorted(u.field_sources.items())),
            notes=u.notes,
        )
        for u in cat.ultraserver_types.values()
    )
    return CatalogueListing(
        scope="every type AWS lists" if every else "training types (curated)",
        generated_table_as_of=generated_as_of() if every else None,
        instance_types=types,
        accelerators=accelerators,
        ultraserver_types=ultraservers,
        sources=tuple(ListedSource(s.id, s.title, s.url, s.as_of) for s in cat.sources.values()),
    )


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def run(args: argparse.Namespace) -> int:
    from planner.core.reading.bounded_files import emit

    if args.format == "json":
        from planner.core.render.json_report import record_text

        emit(record_text(listing(args.all)))
        return 0
    from planner.core.catalogue.instance_types import load
    from planner.core.text.numbers import num
    from planner.core.text.terminal import grid, human

    cat = load()
    types = listed(cat, args.all)
    ultraservers = list(cat.ultraserver_types.values())
    rows = []
    for t in types:
        rows.append(
            (
                t.name,
                f"{t.accelerator_count} {t.accelerator.name}" if t.accelerator is not None else "-",
                num(t.accelerator.memory_gib) if t.accelerator is not None else "-",
                "/".join(str(u.members) for u in cat.ultraservers_of(t.name)) or "-",
                str(t.vcpus),
                num(t.memory_gib),
                f"{t.network_cards if t.network_cards is not None else '?'}/{num(t.network_bandwidth_gbps)}",
                (f"v{t.efa_generation}" if t.efa_generation else "yes") if t.efa_supported else "no",
                num(t.peak_pflops("bf16_dense"), 2),
                num(t.peak_pflops("fp8_dense"), 2),
                num(t.peak_pflops("fp8_sparse"), 2),
                ", ".join(["spot"] * bool(t.spot) + ["block"] * bool(t.capacity_block)) or "-",
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
    for u in ultraservers:
        where = (
            ", ".join([*u.regions, *(f"{z.zone} ({z.region}, opt-in)" if z.opt_in else z.zone for z in u.local_zones)])
            or "-"
        )
        urows.append(
            (
                u.name,
                u.member_instance_type or "not in the EC2 API yet",
                str(u.members),
                f"{u.accelerators} {u.accelerator.name}",
                num(_r(u.peak_pflops("bf16_dense")), 1),  # the JSON's figure (3 decimals), to one
                num(_r(u.peak_pflops("fp8_dense")), 1),
                u.interconnect,
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
    not_declarable = sum(1 for u in ultraservers if not u.declarable)
    if not args.all:
        lines += [
            "",
            "These are the curated training types; `planner catalog --all` lists every type AWS lists (planned and "
            "priced too, with DescribeInstanceTypes' figures and no peak FLOPS unless a curated chip names them).",
        ]
    lines += [
        "",
        f"{len(types)} instance types; {len(ultraservers)} UltraServer types ({not_declarable} not declarable yet)",
    ]
    emit(human(lines))
    return 0
