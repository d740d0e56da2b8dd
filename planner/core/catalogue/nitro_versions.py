"""The AWS Nitro System version of instance families, as `nitro_versions.yaml` copies it from the EC2 Instance
Types Guide ("Instances built on the AWS Nitro System", a dated copy): rule lustre-efa-clients reads it, since FSx
for Lustre supports EFA clients on Nitro v4 or higher only.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from planner.core.catalogue import shipped_data as _data


@lru_cache(maxsize=1)
def families() -> Mapping[str, int]:
    """Instance family (the type's prefix, lower-case) -> Nitro version, for the families the page lists."""
    raw = _data.raw("nitro_versions.yaml")[0]
    return {str(k): int(v) for k, v in raw["families"].items()}


def source() -> str:
    return str(_data.raw("nitro_versions.yaml")[0]["source"])


def of(instance_type: str) -> int | None:
    """The Nitro version of `instance_type`'s family, or None when the page lists no version for it."""
    return families().get(instance_type.split(".", 1)[0].lower())
