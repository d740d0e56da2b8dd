"""planner: declare, validate and price AWS ML training clusters before they are deployed.

The core (model, catalogue, rules, cost, reports) imports neither pulumi nor boto3, so the
CLI starts fast; Pulumi components, the policy pack and AWS look-ups are adapters around it.
"""

__version__ = "0.1.0"
