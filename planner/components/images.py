"""Default machine images: the public SSM parameters AWS publishes for its Deep Learning AMIs.

A launch template can take `resolve:ssm:<parameter>` as its image id; EC2 resolves it at
launch, so the nodes get the current DLAMI without a lookup in the program (and without
credentials in `planner plan --program`). Pass `image_id` to use your own AMI.
Both Ubuntu 24.04 images use `/dev/sda1` as the root device (`ROOT_DEVICE`); for your own AMI give
`root_device_name` when its root device differs (Amazon Linux: `/dev/xvda`), or the launch template's
root volume would be an extra volume beside the AMI's own root.
"""

from __future__ import annotations

from msgspec import Struct


class DefaultImage(Struct, frozen=True):
    ssm_parameter: str
    source: str  # where the parameter name is documented
    as_of: str

    @property
    def image_id(self) -> str:
        return f"resolve:ssm:{self.ssm_parameter}"


# By accelerator vendor in the catalogue (`Accelerator.vendor`).
BY_VENDOR: dict[str, DefaultImage] = {
    "AWS": DefaultImage(
        "/aws/service/neuron/dlami/multi-framework/ubuntu-24.04/latest/image_id",
        "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/dlami/index.html",
        "2026-11",
    ),
    "NVIDIA": DefaultImage(
        "/aws/service/deeplearning/ami/x86_64/base-oss-nvidia-driver-gpu-ubuntu-24.04/latest/ami-id",
        "https://docs.aws.amazon.com/dlami/latest/devguide/find-dlami-id.html",
        "2026-11",
    ),
}


ROOT_DEVICE = "/dev/sda1"  # the root device of both default images, and the default for `image_id`'s AMI


def default_for(vendor: str) -> DefaultImage:
    return BY_VENDOR[vendor]
