"""Write `planner/data/instance_types.yaml`: every EC2 instance type AWS's DescribeInstanceTypes data lists.

The curated training types (`planner/data/catalogue.yaml`) carry figures AWS's API does not give (peak
FLOPS, NeuronLink and NVLink domains, UltraServer membership) with their sources; every other type a
cluster may declare (a CPU system node group, a g6e Karpenter pool, an inf2 inference pool) is planned
from this file, generated from the data the installed moto ships: AWS's DescribeInstanceTypes answers
(`moto/ec2/resources/instance_types.json.gz`) and DescribeInstanceTypeOfferings per region, location
type region (`moto/ec2/resources/instance_type_offerings/region/`). Per type: vCPUs, memory,
accelerators (GPU, Neuron, inference, FPGA, media: count, name, maker, memory), EFA and its maximum
interfaces, network cards and interfaces, network performance, local instance storage, the processor
architectures, the supported usage classes, and the regions that offer it.

The file's date is the day the moto release was published on PyPI (its `upload-time` in uv.lock).
`make drift` regenerates it from the newest moto and reports what changed (tools/drift.py); run
`.venv/bin/python -m tools.gen_instance_types` after upgrading moto in uv.lock, then
`.venv/bin/python -m tools.gen_prebuilt_data`.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "planner" / "data" / "instance_types.yaml"
DESCRIBE_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypes.html"
OFFERINGS_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypeOfferings.html"
# DescribeInstanceTypes' accelerator records: (key, list key, kind planner calls it)
ACCELERATOR_INFO = (
    ("GpuInfo", "Gpus", "gpu"),
    ("NeuronInfo", "NeuronDevices", "neuron"),
    ("InferenceAcceleratorInfo", "Accelerators", "inference"),
    ("FpgaInfo", "Fpgas", "fpga"),
    ("MediaAcceleratorInfo", "Accelerators", "media"),
)


def _resources() -> str:
    import moto

    return os.path.join(os.path.dirname(moto.__file__), "ec2", "resources")


def described() -> dict[str, dict[str, Any]]:
    """AWS's DescribeInstanceTypes answers as moto ships them, by type name."""
    with gzip.open(os.path.join(_resources(), "instance_types.json.gz")) as fh:
        data: dict[str, dict[str, Any]] = json.load(fh)
    return data


def offered() -> dict[str, list[str]]:
    """Type name -> the regions whose DescribeInstanceTypeOfferings (location type region) name it, sorted."""
    base = os.path.join(_resources(), "instance_type_offerings", "region")
    out: dict[str, set[str]] = {}
    for f in sorted(os.listdir(base)):
        with gzip.open(os.path.join(base, f)) as fh:
            for o in json.load(fh):
                out.setdefault(o["InstanceType"], set()).add(o["Location"])
    return {k: sorted(v) for k, v in out.items()}


def published(package: str, version: str) -> str | None:
    """The day `package` `version` was uploaded to PyPI, from uv.lock's sdist `upload-time`; None if not locked."""
    lock = (ROOT / "uv.lock").read_text(encoding="utf-8")
    block = re.search(rf'\nname = "{re.escape(package)}"\nversion = "{re.escape(version)}"\n(.*?)\n\n', lock, re.S)
    if block is None:
        return None
    sdist = re.search(r'sdist = \{[^\n]*upload-time = "(\d{4}-\d\d-\d\d)T', block.group(1))
    return sdist.group(1) if sdist else None


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def entry(d: Mapping[str, Any], regions: list[str]) -> dict[str, Any]:
    """One type's figures, as planner keeps them, from its DescribeInstanceTypes answer."""
    net = d.get("NetworkInfo") or {}
    accelerators = []
    for key, items, kind in ACCELERATOR_INFO:
        for a in (d.get(key) or {}).get(items) or ():
            acc: dict[str, Any] = {
                "kind": kind,
                "count": a.get("Count"),
                "name": a.get("Name"),
                "maker": a.get("Manufacturer"),
                "memory_mib": (a.get("MemoryInfo") or {}).get("SizeInMiB"),
            }
            if kind == "neuron":
                acc["maker"] = "AWS"  # DescribeInstanceTypes names no manufacturer for Neuron devices
                acc["cores"] = (a.get("CoreInfo") or {}).get("Count")
            accelerators.append(acc)
    storage = d.get("InstanceStorageInfo") or {}
    disks = storage.get("Disks") or []
    cards = net.get("NetworkCards") or []
    out: dict[str, Any] = {
        "vcpus": (d.get("VCpuInfo") or {}).get("DefaultVCpus"),
        "architectures": sorted((d.get("ProcessorInfo") or {}).get("SupportedArchitectures") or ()),
        "memory_mib": (d.get("MemoryInfo") or {}).get("SizeInMiB"),
        "accelerators": accelerators,
        "efa_max_interfaces": (net.get("EfaInfo") or {}).get("MaximumEfaInterfaces", 0)
        if net.get("EfaSupported")
        else 0,
        # the first network card that takes an EFA interface (p6-b300.48xlarge: card 0 is ENA only)
        "efa_first_card": min(
            (c.get("NetworkCardIndex", 0) for c in cards if "efa" in (c.get("InterfaceTypes") or ())), default=0
        ),
        "network_cards": net.get("MaximumNetworkCards"),
        "max_network_interfaces": net.get("MaximumNetworkInterfaces"),
        "network_performance": net.get("NetworkPerformance"),
        "peak_bandwidth_gbps": _number(sum(c.get("PeakBandwidthInGbps", 0) for c in cards)) if cards else None,
        "local_storage": [
            {"count": k.get("Count"), "size_gb": k.get("SizeInGB"), "type": k.get("Type")} for k in disks
        ],
        "local_nvme": storage.get("NvmeSupport") in ("required", "supported") if disks else False,
        "usage_classes": sorted(d.get("SupportedUsageClasses") or ()),
        "bare_metal": bool(d.get("BareMetal")),
        "regions": regions,
    }
    return out


def _flow(value: Any) -> str:
    """`value` as a YAML flow scalar or collection (strings as JSON strings, which YAML reads the same)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return json.dumps(value) if not re.fullmatch(r"[a-z0-9][a-z0-9.-]*", value) else value
    return str(value)


def render() -> str:
    import moto

    types, regions = described(), offered()
    day = published("moto", moto.__version__)
    lines = [
        "# GENERATED by tools/gen_instance_types.py: do not edit (`make drift` compares it with newer data).",
        "# Every EC2 instance type in AWS's DescribeInstanceTypes data, with the regions whose",
        "# DescribeInstanceTypeOfferings (location type region) list it, as moto ships them. The curated",
        "# training types of catalogue.yaml win where they say more; tests/test_instance_types.py says where",
        "# this data and a curated figure disagree. Memory in MiB, as AWS gives it.",
        "version: 1",
        "sources:",
        f'  describe-instance-types: {{title: "EC2 DescribeInstanceTypes (AWS data as shipped in moto {moto.__version__}, '
        f'published {day or "on a day uv.lock does not record"})", url: "{DESCRIBE_DOC}", as_of: {day or "null"}}}',
        f'  instance-type-offerings: {{title: "EC2 DescribeInstanceTypeOfferings, location type region (moto {moto.__version__})", '
        f'url: "{OFFERINGS_DOC}", as_of: {day or "null"}}}',
        f"moto: {json.dumps(moto.__version__)}",
        f"as_of: {day or 'null'}",
        "instance_types:",
    ]
    for name in sorted(types):
        lines.append(f"  {name}: {_flow(entry(types[name], regions.get(name, [])))}")
    return "\n".join(lines) + "\n"


def main() -> None:
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
