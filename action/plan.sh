#!/usr/bin/env bash
# The planner Action's plan step: action.yml runs it, tests/test_action.py runs it locally.
#
# Reads PLANNER_PATHS (space-separated stack files or folders), PLANNER_FAIL_ON,
# PLANNER_PRICE_BOOK, PLANNER_BASE_REF (a git ref to diff against; empty: no diff) and
# PLANNER_OUT (folder for the reports). Writes to $GITHUB_OUTPUT: exit-code (0 fine, 1 a
# finding at or above fail-on, 2 unusable input), total-cost (USD over every stack, or
# `unknown` when a price or the hours are unknown, empty on unusable input), sarif-file
# and comment-file. Annotations (`--format github`) go to the log. This step always
# succeeds: the Action's last step is the gate, so reports are written and posted first.
set -uo pipefail

read -r -a paths <<< "${PLANNER_PATHS:-stacks/}"
book=()
if [ -n "${PLANNER_PRICE_BOOK:-}" ]; then book=(--price-book "$PLANNER_PRICE_BOOK"); fi
out="${PLANNER_OUT:-${RUNNER_TEMP:-.}/planner}"
mkdir -p "$out"

planner plan "${paths[@]}" "${book[@]}" --fail-on "${PLANNER_FAIL_ON:-error}" --format github
code=$?

total=""
if [ "$code" -ne 2 ]; then
  planner plan "${paths[@]}" "${book[@]}" --format json -o "$out/plan.json" || true
  planner plan "${paths[@]}" "${book[@]}" --format sarif -o "$out/planner.sarif" || true
  total=$(python3 - "$out/plan.json" <<'PY'
import json, sys
stacks = json.load(open(sys.argv[1], encoding="utf-8"))["stacks"]
totals = [(s.get("cost") or {}).get("total_usd") for s in stacks]
print("unknown" if any(t is None for t in totals) else f"{sum(totals):.2f}")
PY
)
fi

{
  # Exit codes 1 (findings) and 2 (unusable input) still produce text worth posting.
  # Error messages quote the pull request's text: they go in a fenced block of their own,
  # where GitHub renders nothing (every line starts with "planner", so none closes it;
  # docs/security.md).
  planner plan "${paths[@]}" "${book[@]}" --format markdown 2> "$out/errors.txt" || true
  if [ -n "${PLANNER_BASE_REF:-}" ]; then
    echo
    planner diff --base-ref "$PLANNER_BASE_REF" "${paths[@]}" "${book[@]}" --format markdown 2>> "$out/errors.txt" || true
  fi
  if [ -s "$out/errors.txt" ]; then
    printf '\n````text\n'; cat "$out/errors.txt"; printf '````\n'
  fi
} > "$out/comment.md"

{
  echo "exit-code=$code"
  echo "total-cost=$total"
  echo "sarif-file=$([ -f "$out/planner.sarif" ] && echo "$out/planner.sarif")"
  echo "comment-file=$out/comment.md"
} >> "${GITHUB_OUTPUT:-/dev/stdout}"
