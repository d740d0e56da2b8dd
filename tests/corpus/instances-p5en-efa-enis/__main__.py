"""Two p5en.48xlarge on a Capacity Block, each with 16 EFA interfaces, from `aws ec2 run-instances`.

Source: whn09/DeepEP, start_ec2.sh, commit 9ba838b1034925b2b9f1d74e05f1a7e631464cbf. The script's
run-instances call (--count 2, one EFA interface per network card) translated to pulumi_aws: the
interfaces are `aws.ec2.NetworkInterface` resources attached at launch. Values kept, including the
placeholder reservation id "YOUR_CapacityReservationId" and the existing subnet and security group
(not resources of this program, so their AZ is unknown here).
"""

import pulumi
import pulumi_aws as aws

REGION = "us-west-2"
INSTANCETYPE = "p5en.48xlarge"
AMI = "ami-0cd047a60c9801486"
KEYNAME = "YOUR_KEYNAME"
SG = "sg-0ecfda87ea8a4a25e"
SUBNET = "subnet-39072272"

provider = aws.Provider("us-west-2", region=REGION)
for n in range(2):  # --count "2"
    interfaces = [aws.ec2.NetworkInterface(f"p5-{n}-efa-{card}", subnet_id=SUBNET, security_groups=[SG],
                                           interface_type="efa",
                                           opts=pulumi.ResourceOptions(provider=provider))
                  for card in range(16)]
    aws.ec2.Instance(
        f"p5-{n}",
        instance_type=INSTANCETYPE,
        ami=AMI,
        key_name=KEYNAME,
        tags={"Name": "P5"},
        capacity_reservation_specification={"capacity_reservation_target": {
            "capacity_reservation_id": "YOUR_CapacityReservationId"}},
        instance_market_options={"market_type": "capacity-block"},
        metadata_options={"http_tokens": "required"},
        network_interfaces=[{"network_card_index": card, "device_index": 0 if card == 0 else 1,
                             "network_interface_id": eni.id} for card, eni in enumerate(interfaces)],
        opts=pulumi.ResourceOptions(provider=provider),
    )
