"""Subcommands of `planner`; each module has `register(subparsers)`."""
