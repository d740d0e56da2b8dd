"""What one training cluster offers the step-time model: per accelerator its peaks, memory and
memory bandwidth, the scale-up link (NVLink, NeuronLink) and how many accelerators it joins, and
the EFA bandwidth each accelerator gets to the rest of the cluster.

The scale-up domain is the instance, or the whole UltraServer when the cluster is made of
UltraServers: that is the difference between four trn2.48xlarge and one Trn2 UltraServer.
Peaks and memory come from the catalogue; the link and HBM figures from runtime_hardware.yaml.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from msgspec import Struct

from planner.core.catalogue import shipped_data as _data
from planner.core.catalogue.instance_types import Accelerator, InstanceType, UltraServerType

GB = 1e9
GIB = float(1 << 30)


class System(Struct, frozen=True):
    """A cluster as the step-time model sees it; bandwidths in bytes per second, one direction."""

    name: str
    accelerator: str
    stack: str  # the software stack the efficiency constants belong to: nvidia | neuron
    accelerators: int
    per_instance: int
    domain: int  # accelerators joined by the scale-up link
    peak_flops: Mapping[str, float]  # bf16 / fp8 dense, per accelerator
    hbm_bytes: float
    hbm_bandwidth: float
    scale_up_bandwidth: float
    efa_bandwidth: float  # per accelerator, to other scale-up domains
    link: str
    notes: tuple[str, ...] = ()
    ranks: int = 1  # framework ranks per accelerator (NeuronCores a Trainium chip runs as separate ranks)

    def bandwidth(self, group: int, stride: int) -> float:
        """One-direction bandwidth per accelerator of a collective over `group` ranks `stride` apart:
        the scale-up link while the group stays in one domain, else the accelerator's share of EFA."""
        return self.scale_up_bandwidth if group * stride <= self.domain else self.efa_bandwidth


@lru_cache(maxsize=1)
def _figures() -> Any:
    return _data.raw("runtime_hardware.yaml")[0]


def link_figures(accelerator: str) -> Mapping[str, Any] | None:
    found = _figures()["accelerators"].get(accelerator)
    return None if found is None else dict(found)


def stack_of(accelerator: str) -> str | None:
    found = _figures()["stacks"].get(accelerator)
    return None if found is None else str(found)


def hardware_source(accelerator: str) -> str | None:
    """The page the accelerator's bandwidth figures come from (its URL)."""
    fig = link_figures(accelerator)
    if fig is None:
        return None
    return str(_figures()["sources"][fig["source"]]["url"])


def _peaks(acc: Accelerator) -> dict[str, float]:
    out = {}
    for precision, key in (("bf16", "bf16_dense"), ("fp8", "fp8_dense")):
        tf = acc.peak_tflops.get(key)
        if tf is not None:
            out[precision] = float(tf) * 1e12
    return out


def build(
    name: str,
    acc: Accelerator,
    per_instance: int,
    instances: int,
    domain: int,
    efa_gbps_per_instance: float | None,
    notes: tuple[str, ...] = (),
) -> System | None:
    """A System, or None when runtime_hardware.yaml has no link figures for the accelerator."""
    fig = link_figures(acc.name)
    stack = stack_of(acc.name)
    if fig is None or stack is None:
        return None
    efa = (efa_gbps_per_instance or 0.0) / 8 * GB / per_instance
    return System(
        name=name,
        accelerator=acc.name,
        stack=stack,
        accelerators=per_instance * instances,
        per_instance=per_instance,
        domain=domain,
        peak_flops=_peaks(acc),
        hbm_bytes=acc.memory_gib * GIB,
        hbm_bandwidth=float(fig["hbm_gb_s"]) * GB,
        scale_up_bandwidth=float(fig["scale_up_gb_s"]) / 2 * GB,
        efa_bandwidth=efa,
        link=str(fig["link"]),
        notes=notes,
        ranks=int(fig.get("ranks", 1)),
    )


def for_instances(t: InstanceType, instances: int, ultra: UltraServerType | None = None) -> System | None:
    """`instances` of type `t`; joined `ultra.members` at a time by the UltraServer's link when `ultra` is given."""
    if t.accelerator is None:
        return None  # no accelerator: nothing to run a model on
    domain = ultra.accelerators if ultra is not None else t.accelerator_count
    name = f"{instances} x {t.name}" + (f" ({ultra.name})" if ultra is not None else "")
    return build(name, t.accelerator, t.accelerator_count, instances, domain, t.network_bandwidth_gbps)


def for_ultraservers(u: UltraServerType, count: int, efa_gbps_per_member: float | None) -> System | None:
    """`count` UltraServers whose member type the EC2 API does not list (Trn3): EFA given by the caller."""
    return build(
        f"{count} x {u.name}",
        u.accelerator,
        u.accelerators_per_member,
        u.members * count,
        u.accelerators,
        efa_gbps_per_member,
    )
