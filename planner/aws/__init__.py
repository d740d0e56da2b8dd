"""Adapters that ask the AWS account what only it can tell: capacity, quotas, reservations, prices.

Nothing here is imported by `planner plan` unless `--live-prices` is given, and boto3 is
imported inside functions only, so the core and the CLI start without it. Checks are
data plus functions (`planner.aws.preflight_run.registry()`), with the same metadata record as
the spec rules, so `planner rules` can list them beside the rules.
"""
