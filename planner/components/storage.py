"""`LustreStorage`: FSx for Lustre in the cluster's subnet, as declared and planned.

The file system lives in exactly one subnet (pulumi-aws 7 takes `subnet_ids` as one
string). S3 data goes in through an import path on SCRATCH_1/2 and PERSISTENT_1, and
through a data repository association on PERSISTENT_2, which does not take import paths.
An EFA-enabled file system (PERSISTENT_2 only) needs a metadata configuration and the EFA
security group, so it joins the cluster's EFA group as well as the Lustre one.
"""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
import pulumi_aws as aws
from msgspec import Struct

from planner.components import checks
from planner.components.args import LustreArgs, region_problems
from planner.core.catalogue.lustre_deployments import DATA_REPOSITORY_ASSOCIATION, IMPORT_PATH, deployment_types
from planner.core.reading.problems import Problem

TYPE = "planner:index:LustreStorage"


class LustreStorageArgs(Struct, frozen=True):
    lustre: LustreArgs
    subnet_id: pulumi.Input[str]
    security_group_ids: Sequence[pulumi.Input[str]]  # the Lustre group (and the EFA group when efa_enabled)
    availability_zone: str | None = None  # checked when used alone: the lustre AZ, else this
    file_system_path: str = "/"  # where the S3 association appears in the file system (PERSISTENT_2)
    region: str | None = None
    # True when the caller (the cluster component) already planned this file system with the
    # whole topology: it is then not planned again alone. Told through the args, never by
    # inspecting the parent, so this module does not depend on the cluster's.
    planned: bool = False


class LustreStorage(pulumi.ComponentResource):
    file_system_id: pulumi.Output[str]
    dns_name: pulumi.Output[str]
    mount_name: pulumi.Output[str]

    def __init__(self, name: str, args: LustreStorageArgs, opts: pulumi.ResourceOptions | None = None):
        label = f"LustreStorage({name!r})"
        if not isinstance(args, LustreStorageArgs):
            raise checks.ClusterInputError(
                [Problem(label, None, "args", f"expected LustreStorageArgs, got {type(args).__name__}")]
            )
        problems = region_problems(args.region, label)
        if not isinstance(args.lustre, LustreArgs):
            problems.append(Problem(label, None, "lustre", f"expected LustreArgs, got {type(args.lustre).__name__}"))
        if isinstance(args.security_group_ids, (str, bytes)) or not isinstance(args.security_group_ids, Sequence):
            problems.append(Problem(label, None, "security_group_ids", "expected a list of security group ids"))
        if problems:
            raise checks.ClusterInputError(problems)
        lu = args.lustre
        if not args.planned:
            _plan_alone(name, args)
        super().__init__(TYPE, name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        # ImportPath where AWS accepts it, else a data repository association (PERSISTENT_2):
        # the same choice the lustre-s3-association rule checks (planner/data/fsx_lustre.yaml)
        link = deployment_types()[lu.deployment_type].s3_link if lu.s3_import_path else None
        fs = aws.fsx.LustreFileSystem(
            f"{name}-fs",
            deployment_type=lu.deployment_type,
            # "2.15 is supported by all Lustre deployment types and is recommended for all new
            # file systems" (FSx CreateFileSystem API reference); the default is still 2.10.
            file_system_type_version="2.15",
            storage_capacity=lu.storage_capacity_gib,
            per_unit_storage_throughput=lu.per_unit_storage_throughput,
            subnet_ids=args.subnet_id,
            security_group_ids=list(args.security_group_ids),
            import_path=lu.s3_import_path if link == IMPORT_PATH else None,
            # Intelligent-Tiering: its throughput capacity and SSD read cache instead of a capacity
            storage_type=lu.storage_type,
            throughput_capacity=lu.throughput_capacity_mbps,
            data_read_cache_configuration=(
                aws.fsx.LustreFileSystemDataReadCacheConfigurationArgs(
                    sizing_mode=lu.read_cache_sizing_mode, size=lu.read_cache_size_gib
                )
                if lu.read_cache_sizing_mode
                else None
            ),
            efa_enabled=True if lu.efa_enabled else None,
            metadata_configuration={"mode": "AUTOMATIC"} if lu.efa_enabled else None,
            tags={"Name": f"{name}-fs"},
            opts=child,
        )
        if link == DATA_REPOSITORY_ASSOCIATION:
            aws.fsx.DataRepositoryAssociation(
                f"{name}-s3",
                file_system_id=fs.id,
                file_system_path=args.file_system_path,
                data_repository_path=lu.s3_import_path,
                batch_import_meta_data_on_create=True,
                s3={"auto_import_policy": {"events": ["NEW", "CHANGED", "DELETED"]}},
                opts=child,
            )
        self.file_system_id, self.dns_name, self.mount_name = fs.id, fs.dns_name, fs.mount_name
        self.register_outputs({"file_system_id": fs.id, "dns_name": fs.dns_name, "mount_name": fs.mount_name})


def _plan_alone(name: str, args: LustreStorageArgs) -> None:
    """Used without a cluster: plan a topology holding only this file system (the FSx rules)."""
    label = f"LustreStorage({name!r})"
    region = checks.stack_region(args.region, label)
    az = args.lustre.availability_zone or args.availability_zone
    mapping = {"availability_zone": az, "lustre": args.lustre.to_config()}
    stack = checks.stack_from_config(name, mapping, region, label, lustre_only=True)
    checks.plan_or_stop(label, stack)
