"""The planner policy pack: `pulumi preview --policy-pack policy`.

Only builds the pack: `PolicyPack(...)` serves the Pulumi engine until it is stopped, so
the policies live in the importable, tested module `planner.policy`.
"""

from pulumi_policy import PolicyPack

from planner.policy import PACK_NAME, POLICIES

PolicyPack(name=PACK_NAME, policies=POLICIES)
