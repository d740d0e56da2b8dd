"""Compute that cannot be sized: it will launch accelerated instances, but how many is not in the program.

An AWS Batch compute environment scales between `minvCpus` and `maxvCpus` as jobs
arrive; a Karpenter node pool launches what pending pods ask for, up to its limits; a
SageMaker HyperPod cluster or an AWS PCS compute node group sizes itself. The read-back of
a program cannot count such instances, so it cannot plan or price them: saying nothing
would read as "nothing to pay for". This rule names each one, the instance types it may
launch and the range it allows.
"""

from __future__ import annotations

from typing import Iterator

from planner.findings import Finding
from planner.rules import Rule, RuleContext, rule

BATCH_COMPUTE_RESOURCE_DOC = "https://docs.aws.amazon.com/batch/latest/APIReference/API_ComputeResource.html"


@rule(
    id="compute-unsized",
    severity="warning",
    category="readback",
    description=("Compute read back from a program that will launch accelerated instances in numbers the program "
                 "does not fix (AWS Batch, Karpenter, HyperPod, PCS): not planned, not priced."),
    source=BATCH_COMPUTE_RESOURCE_DOC,
    remediation=("Plan its largest size as a stack file (or planner components), or give the policy pack's "
                 "`planner-budget` the `hours` and `instances` it may run."),
)
def compute_unsized(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    for u in ctx.cluster.unplanned:
        if u.reason != "unsized":
            continue
        types = ", ".join(u.instance_types) if u.instance_types else "instance types it chooses itself"
        yield r.finding(ctx, u.path, f"{u.resource} may launch {types} ({u.range}): how many cannot be read from the "
                                     "program, so it is not planned or priced", fix=u.fix)
