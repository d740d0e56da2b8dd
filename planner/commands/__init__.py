"""Subcommands of `planner`; each module has `register(subparsers)`."""

from __future__ import annotations

import argparse


def region_arg(text: str) -> str:
    """argparse type for `--region`: the shape of an AWS region name, as stack files are checked."""
    from planner.parse import _REGION

    if not _REGION.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected an AWS region such as us-east-2, got '{text}'")
    return text
