"""Karpenter NodePools chosen by instance family, each with a cpu limit, and their EC2NodeClasses.

Source: awslabs/ai-on-eks, infra/base/terraform/addons.tf, commit
4e81941dd0fbe872d4089c30f4bfc36eb85ad8fe: the `karpenter_resources_helm_config` of the
eks-data-addons module, whose karpenter-resources chart renders one NodePool and one
EC2NodeClass per entry. Translated as the Kubernetes resources the chart renders
(`kubernetes:karpenter.sh/v1:NodePool`, `kubernetes:karpenter.k8s.aws/v1:EC2NodeClass`,
the type tokens pulumi_kubernetes' CustomResource registers; registered here with
`pulumi.CustomResource` so the test needs no Kubernetes SDK). Values kept as written:
requirements (family, size, arch, capacity type) and `limits: cpu: 1000` of the g6e, g6,
g5, x86 (m5), trn1, inf2 and graviton pools. The EC2NodeClasses select subnets and
security groups by the `karpenter.sh/discovery` tag, as the graviton entry spells out (the
others' `local.ec2nodeclass` template is not translated); the VPC is reduced to its two
private subnets carrying that tag.
"""

import pulumi
import pulumi_aws as aws

cluster = "ai-stack"  # var.name's default
vpc = aws.ec2.Vpc(cluster, cidr_block="10.1.0.0/21")
for i, az in enumerate(["us-west-2a", "us-west-2b"]):
    aws.ec2.Subnet(f"private-{az}", vpc_id=vpc.id, cidr_block=f"10.1.{2 * i}.0/23", availability_zone=az,
                   tags={"karpenter.sh/discovery": cluster, "Name": f"{cluster}-private-{az}"})
aws.ec2.SecurityGroup("node", vpc_id=vpc.id, tags={"karpenter.sh/discovery": cluster, "Name": f"{cluster}-node"})

SIZES = ["2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge"]
POOLS = {
    "g6e-gpu-karpenter": [("karpenter.k8s.aws/instance-family", ["g6e"]), ("karpenter.k8s.aws/instance-size", SIZES),
                          ("kubernetes.io/arch", ["amd64"]), ("karpenter.sh/capacity-type", ["spot", "on-demand"])],
    "g6-gpu-karpenter": [("karpenter.k8s.aws/instance-family", ["g6"]), ("karpenter.k8s.aws/instance-size", SIZES),
                         ("kubernetes.io/arch", ["amd64"]), ("karpenter.sh/capacity-type", ["spot", "on-demand"])],
    "g5-gpu-karpenter": [("karpenter.k8s.aws/instance-family", ["g5"]), ("karpenter.k8s.aws/instance-size", SIZES),
                         ("kubernetes.io/arch", ["amd64"]), ("karpenter.sh/capacity-type", ["spot", "on-demand"])],
    "x86-cpu-karpenter": [("karpenter.k8s.aws/instance-family", ["m5"]),
                          ("karpenter.k8s.aws/instance-size", ["xlarge", "2xlarge", "4xlarge", "8xlarge"]),
                          ("kubernetes.io/arch", ["amd64"]), ("karpenter.sh/capacity-type", ["spot", "on-demand"])],
    "trainium-trn1": [("karpenter.k8s.aws/instance-family", ["trn1"]), ("kubernetes.io/arch", ["amd64"]),
                      ("karpenter.sh/capacity-type", ["on-demand"])],
    "inferentia-inf2": [("karpenter.k8s.aws/instance-family", ["inf2"]), ("kubernetes.io/arch", ["amd64"]),
                        ("karpenter.sh/capacity-type", ["on-demand"])],
}
GRAVITON = [("karpenter.k8s.aws/instance-category", "In", ["c", "m", "r"]),
            ("karpenter.k8s.aws/instance-generation", "Gt", ["6"]),
            ("karpenter.k8s.aws/instance-size", "In", ["8xlarge"]), ("kubernetes.io/arch", "In", ["arm64"]),
            ("karpenter.sh/capacity-type", "In", ["on-demand"])]


def node_class(name: str) -> None:
    pulumi.CustomResource("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", name, {
        "apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": name},
        "spec": {"amiSelectorTerms": [{"alias": "bottlerocket@latest"}],
                 "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": cluster}}],
                 "securityGroupSelectorTerms": [{"tags": {"Name": f"{cluster}-node"}}]}})


def node_pool(name: str, requirements: list[tuple[str, str, list[str]]]) -> None:
    node_class(name)
    pulumi.CustomResource("kubernetes:karpenter.sh/v1:NodePool", name, {
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
        "spec": {"template": {"spec": {
                     "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": name},
                     "requirements": [{"key": k, "operator": op, "values": v} for k, op, v in requirements]}},
                 "limits": {"cpu": 1000},
                 "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "300s"},
                 "weight": 100}})


for pool, reqs in POOLS.items():
    node_pool(pool, [(k, "In", v) for k, v in reqs])
node_pool("graviton-cpu-karpenter", GRAVITON)
