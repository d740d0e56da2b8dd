"""Subcommands of `planner`; each module has `register(subparsers)`."""

from __future__ import annotations

import argparse


AWS_TIMEOUT_SECONDS = 60.0  # --aws-timeout default (planner.aws.deadline; kept here so plan starts without planner.aws)


def aws_timeout_arg(text: str) -> float:
    """argparse type for `--aws-timeout`: seconds, from 1 to 3600."""
    import math

    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not 1 <= v <= 3600:
        from planner.report.text import one_line

        raise argparse.ArgumentTypeError(f"expected seconds from 1 to 3600, got '{one_line(text[:24])}'")
    return v


def region_arg(text: str) -> str:
    """argparse type for `--region`: the shape of an AWS region name, as stack files are checked."""
    from planner.parse import _REGION

    if not _REGION.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected an AWS region such as us-east-2, got '{text[:24]}'")
    return text
