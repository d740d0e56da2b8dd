"""FSx for Lustre file systems the FSx for Lustre CSI driver provisions (`planner.readback.fsx_csi`): the parsing of
Kubernetes quantities and of the driver's string parameters, and the read-back of StorageClasses, claims and volumes
as the driver and Kubernetes treat them (kubernetes-sigs/aws-fsx-csi-driver at `fsx_csi.DRIVER_COMMIT`)."""

from __future__ import annotations

from typing import Any

import pytest

from planner.policy.planning import plan_resources
from planner.policy.testing import Spec, stack_args
from planner.readback.fsx_csi import (
    GIB,
    INT32_MAX,
    Bad,
    parse_bool,
    parse_int,
    quantity_bytes,
    round_up_gib,
)

SC = "kubernetes:storage.k8s.io/v1:StorageClass"
PVC = "kubernetes:core/v1:PersistentVolumeClaim"
PV = "kubernetes:core/v1:PersistentVolume"
LUSTRE = "aws:fsx/lustreFileSystem:LustreFileSystem"


# every test here reads a program's resources, with no stack config of its own
pytestmark = pytest.mark.usefixtures("no_stack_config")


# --- quantities --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1200Gi", 1200 * GIB),
        ("1.5Gi", 3 * 2**29),
        ("1Ti", 2**40),
        ("1200G", 1200 * 10**9),
        ("5e12", 5 * 10**12),
        ("5E3", 5000),
        ("1200", 1200),
        (1200, 1200),
        ("0.5", 1),  # a fraction of a byte is rounded up, as Kubernetes rounds a storage request
        ("1500m", 2),
        ("+1Ki", 1024),
        (".5Ki", 512),
    ],
)
def test_quantity_parses_every_form_kubernetes_writes(text: Any, expected: int) -> None:
    assert quantity_bytes(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "1200 Gi",
        " 1200Gi",
        "1200Gi ",
        "1200gi",
        "1200GB",
        "1,200Gi",
        "-1Gi",
        "",
        "Gi",
        "0x10",
        "1e9999",
        "１２００Gi",  # full-width digits
        "9" * 200 + "Ei",
        "1200Gi\n",
        None,
        True,
        [1200],
        float("nan"),
        float("inf"),
    ],
)
def test_quantity_refuses_what_kubernetes_refuses_and_hostile_text(text: Any) -> None:
    with pytest.raises(Bad):
        quantity_bytes(text)


def test_quantity_refusal_quotes_a_bounded_excerpt() -> None:
    with pytest.raises(Bad) as bad:
        quantity_bytes("x" * 10_000)
    assert len(str(bad.value)) < 120 and "\n" not in str(bad.value)


# --- parameters --------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [("200", 200), ("+125", 125), ("0", 0), ("-1", -1), ("012", 12)])
def test_number_parameters_parse_as_strconv_parseint(text: str, expected: int) -> None:
    assert parse_int("perUnitStorageThroughput", text) == expected


@pytest.mark.parametrize("text", ["", " 200", "200 ", "200.0", "1e3", "1_000", "0x10", "٢٠٠", "2147483648", "9" * 100])
def test_number_parameters_the_driver_refuses_are_bad(text: str) -> None:
    with pytest.raises(Bad) as bad:
        parse_int("perUnitStorageThroughput", text)
    assert str(bad.value).startswith("perUnitStorageThroughput ")


def test_int32_bounds() -> None:
    assert parse_int("metadataIops", str(INT32_MAX)) == INT32_MAX
    with pytest.raises(Bad):
        parse_int("metadataIops", str(INT32_MAX + 1))


@pytest.mark.parametrize(
    ("text", "expected"), [("true", True), ("True", True), ("1", True), ("f", False), ("FALSE", False)]
)
def test_boolean_parameters_parse_as_strconv_parsebool(text: str, expected: bool) -> None:
    assert parse_bool("efaEnabled", text) is expected


@pytest.mark.parametrize("text", ["yes", "on", "tRUE", " true", ""])
def test_boolean_parameters_the_driver_refuses_are_bad(text: str) -> None:
    with pytest.raises(Bad):
        parse_bool("efaEnabled", text)


@pytest.mark.parametrize(
    ("gib", "deployment", "storage", "per_unit", "expected"),
    [
        (1000, "SCRATCH_1", "SSD", 0, 1200),
        (3000, "SCRATCH_1", "SSD", 0, 3600),
        (3601, "", "SSD", 0, 7200),
        (1200, "SCRATCH_2", "SSD", 0, 1200),
        (1300, "PERSISTENT_2", "SSD", 250, 2400),
        (2500, "PERSISTENT_2", "SSD", 250, 4800),
        (100, "PERSISTENT_1", "HDD", 12, 6000),
        (100, "PERSISTENT_1", "HDD", 40, 1800),
    ],
)
def test_the_size_is_rounded_up_as_the_driver_rounds_it(
    gib: int, deployment: str, storage: str, per_unit: int, expected: int
) -> None:
    assert round_up_gib(gib * GIB, deployment, storage, per_unit) == expected


# --- the read-back -----------------------------------------------------------------------------


def compute() -> list[Spec]:
    return [
        Spec("aws:ec2/subnet:Subnet", "private", {"id": "subnet-0aaa1111", "availabilityZone": "us-east-2b"}),
        Spec(
            "aws:eks/nodeGroup:NodeGroup",
            "p5",
            {
                "instanceTypes": ["p5.48xlarge"],
                "capacityType": "ON_DEMAND",
                "subnetIds": ["subnet-0aaa1111"],
                "scalingConfig": {"desiredSize": 2, "minSize": 2, "maxSize": 2},
            },
        ),
    ]


def storage_class(name: str = "fsx-sc", **params: Any) -> Spec:
    parameters = {"subnetId": "subnet-0aaa1111", "securityGroupIds": "sg-1", "deploymentType": "PERSISTENT_2"}
    parameters.update({"perUnitStorageThroughput": "250"})
    parameters.update(params)
    parameters = {k: v for k, v in parameters.items() if v is not None}
    return Spec(SC, name, {"metadata": {"name": name}, "provisioner": "fsx.csi.aws.com", "parameters": parameters})


def claim(name: str = "fsx-claim", cls: Any = "fsx-sc", storage: Any = "1200Gi", **spec: Any) -> Spec:
    body: dict[str, Any] = {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": storage}}, **spec}
    if cls is not None:
        body["storageClassName"] = cls
    return Spec(PVC, name, {"metadata": {"name": name}, "spec": body})


def planned(specs: list[Spec]) -> Any:
    out = plan_resources(stack_args(specs, region="us-east-2").resources, {})
    assert out.problems == [], out.problems
    return out


def notes(out: Any) -> list[tuple[str, str | None, str]]:
    return [(n.message, n.severity, n.rule) for n in out.plan.stack.cluster.notes]


def test_a_claim_of_the_drivers_class_is_the_clusters_lustre_with_its_provenance() -> None:
    """kubernetes-sigs/aws-fsx-csi-driver examples/kubernetes/efa: PERSISTENT_2, "1000", EFA, metadata AUTOMATIC,
    4800Gi: read whole, in the node group's AZ (its subnet), located at the class, its size at the claim."""
    sc = storage_class(perUnitStorageThroughput="1000", efaEnabled="true", metadataConfigurationMode="AUTOMATIC")
    out = planned([*compute(), sc, claim(storage="4800Gi")])
    fs = out.plan.stack.cluster.lustre
    assert (fs.deployment_type, fs.storage_capacity_gib, fs.per_unit_storage_throughput) == ("PERSISTENT_2", 4800, 1000)
    assert (fs.efa_enabled, fs.availability_zone, fs.metadata_configuration, fs.metadata_mode) == (
        True,
        "us-east-2b",
        True,
        "AUTOMATIC",
    )
    resources = out.plan.stack.resources
    assert resources[("config", "planner:cluster", "lustre")].endswith(f"{SC}::fsx-sc")
    assert resources[("config", "planner:cluster", "lustre", "storage_capacity_gib")].endswith(f"{PVC}::fsx-claim")
    assert not [n for n in notes(out) if "fsx" in n[0].lower()]
    lines = [i for i in out.plan.cost.line_items if i.name == "lustre"]
    assert len(lines) == 1


def test_a_request_the_driver_rounds_up_is_planned_at_the_rounded_size_and_said() -> None:
    out = planned([*compute(), storage_class(), claim(storage="1300Gi")])
    assert out.plan.stack.cluster.lustre.storage_capacity_gib == 2400
    assert (
        "PersistentVolumeClaim 'fsx-claim' requests '1300Gi'; the FSx for Lustre CSI driver rounds it up to 2,400 GiB "
        "for PERSISTENT_2, the size planned and priced",
        "info",
        "readback-gap",
    ) in notes(out)


def test_a_storage_class_without_a_claim_provisions_nothing() -> None:
    out = planned([*compute(), storage_class()])
    assert out.plan.stack.cluster.lustre is None
    (msg,) = [m for m, _, _ in notes(out)]
    assert msg.startswith("StorageClass 'fsx-sc' (the FSx for Lustre CSI driver) creates a file system only for a")


def test_a_claim_of_a_class_the_program_does_not_declare_is_said_never_guessed() -> None:
    out = planned([*compute(), storage_class(), claim(cls="fsx-lustre")])
    assert out.plan.stack.cluster.lustre is None
    said = [(m, s) for m, s, _ in notes(out)]
    assert (
        "PersistentVolumeClaim 'fsx-claim' asks for storage class 'fsx-lustre', which is not a StorageClass of this "
        "program: not read (if the FSx for Lustre CSI driver provisions it, that file system is not planned or priced)",
        "info",
    ) in said
    assert any(m.startswith("StorageClass 'fsx-sc'") for m, _ in said)  # and its own class provisions nothing


def static_volume(handle: Any = "fs-0199a9f2c4b1d7e3a", **spec: Any) -> Spec:
    """A PersistentVolume of the driver for the file system `handle` (static provisioning), 1200Gi."""
    body = {"capacity": {"storage": "1200Gi"}, **spec, "csi": {"driver": "fsx.csi.aws.com", "volumeHandle": handle}}
    return Spec(PV, "fsx-pv", {"metadata": {"name": "fsx-pv"}, "spec": body})


def test_a_static_volume_is_an_existing_file_system_said_never_priced_as_new() -> None:
    """examples/kubernetes/static_provisioning: a PersistentVolume of the driver naming fs-0199... by volumeHandle,
    and a claim bound to it by volumeName: nothing to provision."""
    pv = static_volume(accessModes=["ReadWriteMany"])
    out = planned([*compute(), pv, claim(cls="", volumeName="fsx-pv")])
    assert out.plan.stack.cluster.lustre is None
    (said,) = notes(out)
    assert said == (
        "PersistentVolume 'fsx-pv' mounts the existing FSx for Lustre file system 'fs-0199a9f2c4b1d7e3a' (its "
        "volumeHandle), not created by this program: it is not planned or priced as a new file system here",
        "info",
        "readback-gap",
    )
    assert not out.plan.cost.left_out


def ultraserver_compute() -> list[Spec]:
    """Two Trn2 UltraServers (8 trn2u.48xlarge) in an EKS node group: clustered UltraServers."""
    subnet, group = compute()
    props = {**group.props, "instanceTypes": ["trn2u.48xlarge"]}
    props["scalingConfig"] = {"desiredSize": 8, "minSize": 8, "maxSize": 8}
    return [subnet, Spec(group.type, "trn2u", props)]


def test_an_existing_file_system_the_cluster_mounts_is_its_shared_lustre_for_clustered_ultraservers() -> None:
    """`ultraserver-requires-lustre` asks clustered UltraServers for a shared FSx for Lustre file system; one the
    cluster mounts through a static volume of the driver is one (its id is the model's `mounted_lustre`), though it
    is not planned or priced here. Near miss: the same cluster without the volume."""
    fired = [f.rule for f in planned(ultraserver_compute()).plan.findings]
    assert "ultraserver-requires-lustre" in fired
    out = planned(
        [*ultraserver_compute(), static_volume(accessModes=["ReadWriteMany"]), claim(cls="", volumeName="fsx-pv")]
    )
    assert out.plan.stack.cluster.mounted_lustre == ("fs-0199a9f2c4b1d7e3a",)
    assert out.plan.stack.cluster.lustre is None
    assert "ultraserver-requires-lustre" not in [f.rule for f in out.plan.findings]


def test_a_mounted_file_system_known_only_at_deploy_is_named_by_its_volume() -> None:
    unknown = planned([*compute(), static_volume(handle=None)])
    assert unknown.plan.stack.cluster.mounted_lustre == ("PersistentVolume 'fsx-pv'",)


def test_a_claim_bound_to_a_static_volume_of_its_class_provisions_nothing() -> None:
    """awsome-distributed-training megatron nemo1.0 EKS fsx/: a volume of class fsx-sc and a claim of that class."""
    pv = static_volume("fs-0123", storageClassName="fsx-sc")
    out = planned([*compute(), storage_class(), pv, claim()])
    assert out.plan.stack.cluster.lustre is None


@pytest.mark.parametrize(
    ("params", "start"),
    [
        ({"perUnitStorageThroughput": 250}, "StorageClass 'fsx-sc': perUnitStorageThroughput is 250, not a string"),
        ({"efaEnabled": "yes"}, "StorageClass 'fsx-sc': efaEnabled 'yes' is not a boolean the driver parses"),
        ({"deploymentType": "PERSISTENT_9"}, "StorageClass 'fsx-sc': deploymentType 'PERSISTENT_9' is not one"),
        ({"storageType": "INTELLIGENT_TIERING"}, "StorageClass 'fsx-sc': storageType INTELLIGENT_TIERING needs"),
        ({"metadataIops": "1e4"}, "StorageClass 'fsx-sc': metadataIops '1e4' is not a number the driver parses"),
        (
            {"deploymentType": "\u202eSCRATCH_2\n::error::"},
            "StorageClass 'fsx-sc': deploymentType '\\u202eSCRATCH_2\\n",
        ),
    ],
)
def test_a_parameter_the_driver_refuses_is_an_error_and_the_file_system_left_out(
    params: dict[str, Any], start: str
) -> None:
    out = planned([*compute(), storage_class(**params), claim()])
    assert out.plan.stack.cluster.lustre is None
    (note,) = out.plan.stack.cluster.notes
    assert note.message.startswith(start) and note.severity == "error" and "\n" not in note.message
    assert note.message.endswith("the file system of PersistentVolumeClaim 'fsx-claim' is not planned or priced")
    assert note.fix is not None and note.fix.edits[0].path[0] == "parameters"
    assert out.plan.cost.left_out == ("FSx for Lustre file system of PersistentVolumeClaim 'fsx-claim' (not read)",)


@pytest.mark.parametrize("storage", ["1200 Gi", "-5Gi", "0", None, "9" * 60 + "Ei"])
def test_a_size_kubernetes_or_the_driver_refuses_is_an_error_on_the_claim(storage: Any) -> None:
    out = planned([*compute(), storage_class(), claim(storage=storage)])
    assert out.plan.stack.cluster.lustre is None
    (note,) = out.plan.stack.cluster.notes
    assert note.message.startswith("PersistentVolumeClaim 'fsx-claim': ") and note.severity == "error"
    assert out.plan.cost.left_out


def test_a_parameter_the_driver_does_not_read_is_said_and_the_claim_still_sizes_it() -> None:
    out = planned([*compute(), storage_class(storageCapacity="2400"), claim()])
    assert out.plan.stack.cluster.lustre.storage_capacity_gib == 1200
    (msg,) = [m for m, _, _ in notes(out)]
    assert msg == (
        "StorageClass 'fsx-sc': parameter 'storageCapacity' is not one the FSx for Lustre CSI driver reads (it is "
        "ignored): the size is the PersistentVolumeClaim's spec.resources.requests.storage"
    )


def test_a_csi_file_system_beside_an_fsx_resource_is_the_second_one_said_and_left_out() -> None:
    """planner models one file system per cluster: the aws.fsx.LustreFileSystem, as before; the CSI one is said."""
    fsx = Spec(
        LUSTRE,
        "fsxl",
        {
            "deploymentType": "PERSISTENT_2",
            "storageCapacity": 2400,
            "perUnitStorageThroughput": 125,
            "subnetIds": "subnet-0aaa1111",
        },
    )
    out = planned([*compute(), fsx, storage_class(), claim()])
    fs = out.plan.stack.cluster.lustre
    assert (fs.storage_capacity_gib, fs.per_unit_storage_throughput) == (2400, 125)
    (msg,) = [m for m, _, _ in notes(out)]
    assert msg == (
        "planner models one FSx for Lustre file system per cluster; the one the FSx for Lustre CSI driver provisions "
        "for PersistentVolumeClaim 'fsx-claim' is not planned, checked or priced"
    )
    assert out.plan.cost.left_out == ("FSx for Lustre file system of PersistentVolumeClaim 'fsx-claim'",)


def test_a_second_fsx_resource_is_said_and_left_out_of_the_estimate() -> None:
    """Two aws.fsx.LustreFileSystem resources: the first is planned and priced; the second is said, and the
    estimate names it as left out (its total is not complete), as a second CSI file system is."""

    def fsx(name: str, gib: int) -> Spec:
        props = {"deploymentType": "PERSISTENT_2", "storageCapacity": gib, "perUnitStorageThroughput": 125}
        return Spec(LUSTRE, name, {**props, "subnetIds": "subnet-0aaa1111"})

    out = planned([*compute(), fsx("fsxl-a", 2400), fsx("fsxl-b", 4800)])
    assert out.plan.stack.cluster.lustre.storage_capacity_gib == 2400
    (msg,) = [m for m, _, _ in notes(out)]
    assert msg.startswith("planner models one FSx for Lustre file system per cluster; this one is checked")
    assert out.plan.cost.left_out == ("FSx for Lustre file system 'fsxl-b'",)
    assert out.plan.cost.complete is False


def test_two_claims_of_one_class_are_two_file_systems() -> None:
    out = planned([*compute(), storage_class(), claim("a-claim"), claim("b-claim", storage="2400Gi")])
    assert out.plan.stack.cluster.lustre.storage_capacity_gib == 1200  # the first, in URN order
    assert any("PersistentVolumeClaim 'b-claim' is not planned" in m for m, _, _ in notes(out))


def test_a_claim_without_a_class_takes_the_programs_default_class() -> None:
    sc = storage_class()
    sc.props["metadata"]["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    out = planned([*compute(), sc, claim(cls=None)])
    assert out.plan.stack.cluster.lustre.storage_capacity_gib == 1200


def test_a_fix_is_said_in_the_storage_classs_terms() -> None:
    """lustre-throughput on a SCRATCH_2 class given a throughput: said as the class's parameter."""
    from planner.readback.program_terms import in_program_terms

    out = planned([*compute(), storage_class(deploymentType="PERSISTENT_2", perUnitStorageThroughput="300"), claim()])
    (f,) = [f for f in out.plan.findings if f.rule == "lustre-throughput"]
    said = in_program_terms(out.plan.stack, f.fix)
    assert said.startswith(
        'set `parameters.perUnitStorageThroughput` of kubernetes.storage.v1.StorageClass "fsx-sc" to "'
    )


def test_a_claim_naming_an_auto_named_class_by_its_output_is_matched_under_the_mocks() -> None:
    """A StorageClass given no `metadata.name` is auto-named by the Kubernetes provider, and a claim names it by
    `storage_class.metadata.name`: the mocks `plan --program` and `capture` run under fill the name in (without
    the provider's random suffix), so the claim finds its class and the file system is planned."""
    import pulumi

    from planner.policy.testing import capture

    def program() -> None:
        for spec in compute():
            pulumi.CustomResource(spec.type, spec.name, spec.props)
        params = {"subnetId": "subnet-0aaa1111", "deploymentType": "PERSISTENT_2", "perUnitStorageThroughput": "250"}
        sc = pulumi.CustomResource(
            SC, "fsx-sc", {"provisioner": "fsx.csi.aws.com", "parameters": params, "metadata": None}
        )
        name = sc.metadata.apply(lambda m: m["name"])  # type: ignore[attr-defined]
        body = {"accessModes": ["ReadWriteMany"], "storageClassName": name}
        body["resources"] = {"requests": {"storage": "2400Gi"}}
        pulumi.CustomResource(PVC, "fsx-claim", {"spec": body})

    specs = capture(program)
    (seen,) = [s for s in specs if s.type == PVC]
    assert seen.props["spec"]["storageClassName"] == "fsx-sc"
    fs = planned(list(specs)).plan.stack.cluster.lustre
    assert (fs.deployment_type, fs.storage_capacity_gib) == ("PERSISTENT_2", 2400)
