"""`python -m bench`: measure, print a table, write bench/results.json; exit 1 if a target is missed."""

from __future__ import annotations

import argparse
import sys

from bench.run import main

if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per command, after one warm-up (default 5)")
    parser.add_argument("--mock-runs", type=int, default=3, help="runs of the Pulumi program under mocks (default 3)")
    parser.add_argument("--output", default=None, help="results file (default bench/results.json)")
    args = parser.parse_args()
    sys.exit(main(args.runs, args.mock_runs, args.output))
