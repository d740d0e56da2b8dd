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
#
# It runs in the pull request's checkout, so it runs no code from there (docs/security.md):
# no Python but planner's own console script and action/outputs.py under `python3 -I`
# (isolated: neither the working directory nor the script's folder is on sys.path), every
# option value as `--option=VALUE` and the paths after `--`, so no path or input is read
# as an option (`paths: "stacks/ -h"` is a path named `-h`, not a request for help).
set -uo pipefail

read -r -a paths <<< "${PLANNER_PATHS:-stacks/}"
book=()
if [ -n "${PLANNER_PRICE_BOOK:-}" ]; then book=("--price-book=$PLANNER_PRICE_BOOK"); fi
out="${PLANNER_OUT:-${RUNNER_TEMP:-.}/planner}"
mkdir -p "$out"
# a report left by an earlier use of the Action in this job is not this run's
rm -f "$out/plan.json" "$out/planner.sarif" "$out/comment.md" "$out/errors.txt"

# annotations in the log
planner plan "${book[@]}" "--fail-on=${PLANNER_FAIL_ON:-error}" --format github -- "${paths[@]}"
# The exit code and the total cost both come from this run and the JSON it writes.
planner plan "${book[@]}" "--fail-on=${PLANNER_FAIL_ON:-error}" --format json "--output=$out/plan.json" -- "${paths[@]}"
code=$?
if [ "$code" -ne 2 ]; then
  planner plan "${book[@]}" --format sarif "--output=$out/planner.sarif" -- "${paths[@]}" || true
fi

{
  # Exit codes 1 (findings) and 2 (unusable input) still produce text worth posting.
  # Error messages quote the pull request's text: they go in a fenced block of their own,
  # where GitHub renders nothing (every line starts with "planner", so none closes it;
  # docs/security.md).
  planner plan "${book[@]}" --format markdown -- "${paths[@]}" 2> "$out/errors.txt" || true
  if [ -n "${PLANNER_BASE_REF:-}" ]; then
    echo
    planner diff "--base-ref=$PLANNER_BASE_REF" "${book[@]}" --format markdown -- "${paths[@]}" 2>> "$out/errors.txt" || true
  fi
  if [ -s "$out/errors.txt" ]; then
    printf '\n````text\n'; cat "$out/errors.txt"; printf '````\n'
  fi
} > "$out/comment.md"

{
  python3 -I "${ACTION_PATH:-$(dirname "$0")/..}/action/outputs.py" "$code" "$out/plan.json"
  echo "sarif-file=$([ -f "$out/planner.sarif" ] && echo "$out/planner.sarif")"
  echo "comment-file=$out/comment.md"
} >> "${GITHUB_OUTPUT:-/dev/stdout}"
