#!/usr/bin/env bash
# The planner Action's plan step: action.yml runs it, tests/test_action.py runs it locally.
#
# Reads PLANNER_PATHS (stack files, folders or Pulumi projects, separated by spaces or lines;
# empty: the Pulumi project here, else stacks/; action/paths.sh), PLANNER_PATHS_FILE,
# PLANNER_PROGRAM and PLANNER_STACK (a Pulumi program to plan instead), PLANNER_SANDBOX, PLANNER_FAIL_ON,
# PLANNER_FAIL_ON_INCOMPLETE_COST (true: --fail-on-incomplete-cost), PLANNER_PRICE_BOOK,
# PLANNER_BASELINE (a baseline file, read from the base ref's copy when there is one),
# PLANNER_BASE_REF (a git ref to diff against; empty: no diff) and PLANNER_OUT (folder for
# the reports). Writes to $GITHUB_OUTPUT: exit-code (0 fine, 1 a finding at or above
# fail-on, 2 unusable input), total-cost (USD over every stack, or `unknown` when a price or
# the hours are unknown, empty on unusable input), sarif-file, comment-file and planned
# (false when there was nothing to plan: the comment step then only updates an earlier
# comment); with no stack file, folder or program in the paths, planner is not run: exit-code 0, no
# cost, no SARIF. Annotations (`--format github`) go to the log. This step always succeeds:
# the Action's last step is the gate, so reports are written and posted first.
#
# It runs in the pull request's checkout, so it runs no code from there (docs/security.md):
# no Python but planner's own console script and action/outputs.py under `python3 -I`
# (isolated: neither the working directory nor the script's folder is on sys.path), every
# option value as `--option=VALUE` and the paths after `--`, so no path or input is read
# as an option (`paths: "stacks/ -h"` is a path named `-h`, not a request for help).
set -uo pipefail

# The paths to plan, from the `paths` (or `paths-file`) input: action/paths.sh, which the
# install step reads too (it installs the [pulumi] extra when a program may be planned).
# shellcheck source=action/paths.sh
. "${ACTION_PATH:-$(dirname "$0")/..}/action/paths.sh"
planner_paths
# How a program is contained, whether `program` names it or planner finds one in the paths (a
# Pulumi project's stack config with planning keys only): `--sandbox` (planner's jail, required
# by default here). `--stack` may be empty: then every stack of the program's project.
target=("--sandbox=${PLANNER_SANDBOX:-required}")
if [ -n "${PLANNER_PROGRAM:-}" ]; then
  target=("--program=$PLANNER_PROGRAM" "--stack=${PLANNER_STACK:-}" "--sandbox=${PLANNER_SANDBOX:-required}")
  paths=()
  select=()
  here=""
fi
book=()
if [ -n "${PLANNER_PRICE_BOOK:-}" ]; then book=("--price-book=$PLANNER_PRICE_BOOK"); fi
# the rule options, the same on the plan (the gate) and the diff (the comment)
options=()
case "${PLANNER_FAIL_ON_INCOMPLETE_COST:-false}" in
  true) options=("--fail-on-incomplete-cost") ;;
  false) ;;
  # anything else is not a yes or a no: planner refuses it (exit 2, naming the option) rather than guess
  *) options=("--fail-on-incomplete-cost=$PLANNER_FAIL_ON_INCOMPLETE_COST") ;;
esac
mode="${PLANNER_MODE:-all}"
case "$mode" in
  all | plan) ;;
  *) echo "planner: mode: expected all, plan or publish; got $(shown_name "$mode")" >&2; exit 2 ;;
esac
PROGRAM_REFUSED="planner: program: runs the pull request's code; plan it with mode: plan in the pull-request job and post with mode: publish in a workflow_run job (docs/security.md)"
refuse_programs=""
if [ "$mode" = all ]; then
  case "${EVENT_NAME:-}" in
    pull_request | pull_request_target) refuse_programs=1 ;;
  esac
fi
if [ -n "$refuse_programs" ] && [ -n "${PLANNER_PROGRAM:-}" ]; then
  # A program is the pull request's code: it must not run in a job that posts with a write token.
  echo "$PROGRAM_REFUSED" >&2
  echo "exit-code=2" >> "${GITHUB_OUTPUT:-/dev/stdout}"
  exit 2
fi
# the same for a program planner would find in the paths: planner refuses to run it (exit 2)
if [ -n "$refuse_programs" ]; then target+=("--no-programs"); fi
if [ "$mode" = plan ]; then
  out="${RUNNER_TEMP:-.}/planner-artifact"  # what the upload step sends, as the publish job's input
else
  out="${PLANNER_OUT:-${RUNNER_TEMP:-.}/planner}"
fi
mkdir -p "$out"
rm -f "$out/diff.json" "$out/pr.txt" "$out/not-run"
# a report left by an earlier use of the Action in this job is not this run's
rm -f "$out/plan.json" "$out/planner.sarif" "$out/comment.md" "$out/errors.txt" "$out/stderr.txt" "$out/info.txt" "$out/render.txt" "$out/baseline.json"

# The baseline (the `baseline` input, a file `planner plan --create-baseline` wrote): the findings
# it records do not fail the gate. With a base ref (a pull request), it is read from the base's
# copy (`git cat-file blob BASE:PATH`, as planner reads the base for `diff --base-ref`: no hook,
# filter or fsmonitor of the repository runs, no system or global config), never from the pull
# request's working tree, so a pull request cannot weaken its own gate by recording its new
# findings in the file; when the base has no such file, no baseline applies and every finding
# counts. With no base ref (a push), the checkout's copy is the branch's own.
baseline=()
baseline_note=""
BASELINE_MAX_BYTES=16777216  # planner.core.planning.baseline.MAX_BYTES
safe_git() {
  env GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_TERMINAL_PROMPT=0 GIT_OPTIONAL_LOCKS=0 \
    GIT_NO_REPLACE_OBJECTS=1 git -c core.hooksPath=/dev/null -c core.fsmonitor=false \
    -c core.untrackedCache=false -c protocol.allow=never "$@"
}
if [ -n "${PLANNER_BASELINE:-}" ]; then
  if [ -n "${PLANNER_BASE_REF:-}" ]; then
    spec="$PLANNER_BASE_REF:./${PLANNER_BASELINE#./}"
    shown_spec="$(shown_name "$PLANNER_BASE_REF"):$(shown_name "$PLANNER_BASELINE")"
    size=""
    if [[ "$PLANNER_BASE_REF" != -* ]] && [ "$(safe_git cat-file -t "$spec" 2> /dev/null)" = blob ]; then
      size="$(safe_git cat-file -s "$spec" 2> /dev/null)"
    fi
    if ! [[ "$size" =~ ^[0-9]+$ ]]; then
      baseline_note="planner: info: baseline: no $shown_spec (the base's copy is the one read, so that a pull request cannot weaken its own gate): no baseline applies, every finding counts"
    elif [ "$size" -gt "$BASELINE_MAX_BYTES" ]; then
      echo "planner: baseline: $shown_spec is $size bytes; expected a baseline file of at most $BASELINE_MAX_BYTES bytes" >&2
      echo "exit-code=2" >> "${GITHUB_OUTPUT:-/dev/stdout}"
      exit 2
    elif safe_git cat-file blob "$spec" > "$out/baseline.json"; then
      baseline=("--baseline=$out/baseline.json")
      baseline_note="planner: info: baseline: read from the base, $shown_spec (not the pull request's copy)"
    else
      echo "planner: baseline: $shown_spec could not be read from git" >&2
      echo "exit-code=2" >> "${GITHUB_OUTPUT:-/dev/stdout}"
      exit 2
    fi
  else
    baseline=("--baseline=$PLANNER_BASELINE")
  fi
  [ -n "$baseline_note" ] && echo "$baseline_note" >&2
fi
# the baseline's line with planner's own, for the comment's information block
note_baseline() { if [ -n "$baseline_note" ]; then echo "$baseline_note" >> "$out/stderr.txt"; fi; return 0; }
RENDER_FAILED="planner: the report could not be rendered (planner render refused it; its line is in the job log): the gate fails, exit code 2"

if [ -z "${PLANNER_PROGRAM:-}" ] && [ -z "$here" ] && [ ${#paths[@]} -eq 0 ]; then
  # Nothing to plan (a change to README.md alone): planner is not run and the gate passes. The
  # comment is only an update (`planned=false`: action.yml's comment step then creates none): a
  # pull request planner never commented on gets no comment, and one whose earlier push was
  # planned has that comment replaced, so its plan and cost, no longer this change's, are gone.
  shown=""
  for p in "${left_out[@]:0:5}"; do shown+="$(shown_name "$p"), "; done
  shown="${shown%, }"
  [ ${#left_out[@]} -gt 5 ] && shown="$shown and $((${#left_out[@]} - 5)) more"
  note="planner: nothing to plan, planner not run: no stack file (Pulumi.<stack>.yaml), folder or Pulumi program's file in paths (left out: ${shown:-none})"
  echo "$note"
  if [ "$mode" = plan ]; then  # the publish job says it, from this marker (the pull request's own data)
    : > "$out/not-run"
    [[ "${PR_NUMBER:-}" =~ ^[1-9][0-9]{0,9}$ ]] && echo "$PR_NUMBER" > "$out/pr.txt"
    exit 0
  fi
  {
    printf '%s\n## planner: no stack or program changed\n\n' "<!-- planner-report -->"
    printf 'No stack file (`Pulumi.<stack>.yaml`) is left to plan in `paths`, so planner did not run: '
    printf 'the plan and cost an earlier push posted here no longer apply.\n\n````text\n%s\n````\n' "$note"
  } > "$out/comment.md"
  {
    python3 -I "${ACTION_PATH:-$(dirname "$0")/..}/action/outputs.py" not-run
    echo "sarif-file="
    echo "comment-file=$out/comment.md"
    echo "planned=false"
  } >> "${GITHUB_OUTPUT:-/dev/stdout}"
  exit 0
fi

# Planned once: the exit code and the total cost come from this run and the JSON document it
# writes; the annotations, the SARIF and (without a base) the comment are rendered from that
# document (`planner render`), so a program runs once and every report says the same. On
# unusable input the document holds the problems (a broken stack file is a SARIF result and
# an annotation on its line); a run that could not start writes none.
planner plan "${target[@]}" "${select[@]}" "${book[@]}" "${options[@]}" "${baseline[@]}" "--fail-on=${PLANNER_FAIL_ON:-error}" --format json "--output=$out/plan.json" -- "${paths[@]}" 2> "$out/stderr.txt"
code=$?
cat "$out/stderr.txt" >&2  # planner's lines stay in the log
note_baseline
# planner refused a program it found (`--no-programs`): say why, in the log and the comment
explain_refusal() {
  if grep -aq -- "which --no-programs refuses" "$out/stderr.txt"; then
    echo "$PROGRAM_REFUSED" >> "$out/stderr.txt"
    echo "$PROGRAM_REFUSED" >&2
  fi
  return 0
}
explain_refusal
if [ "$mode" = plan ]; then
  # The untrusted half (docs/security.md): the reports as data for the publish job (which validates
  # them), and this job's verdict from planner's own exit status, read here, never from a file or
  # an output that the code planned could have written.
  if [ -n "${PLANNER_BASE_REF:-}" ]; then
    planner diff "--base-ref=$PLANNER_BASE_REF" "${target[@]}" "${select[@]}" "${book[@]}" "${options[@]}" "${baseline[@]}" --format json "--output=$out/diff.json" -- "${paths[@]}" || true
  fi
  [[ "${PR_NUMBER:-}" =~ ^[1-9][0-9]{0,9}$ ]] && echo "$PR_NUMBER" > "$out/pr.txt"
  if [ -f "$out/plan.json" ]; then
    planner render --format github -- "$out/plan.json" || code=2  # annotations in this job's log
  fi
  rm -f "$out/stderr.txt"
  echo "planner: exit code $code"
  exit "$code"
fi
# A report planner cannot render (too large, not valid) is no pass: the gate fails with a line
# that says so, never an empty comment and exit code 0 (docs/security.md).
render_failed=""
if [ -f "$out/plan.json" ]; then
  planner render --format github -- "$out/plan.json" || render_failed=1  # annotations in the log
  planner render --format sarif "--output=$out/planner.sarif" -- "$out/plan.json" || render_failed=1
fi

{
  # Exit codes 1 (findings) and 2 (unusable input) still produce text worth posting.
  # Error messages quote the pull request's text: they go in a fenced block of their own,
  # where GitHub renders nothing (every line starts with "planner", so none closes it;
  # docs/security.md).
  # One report, under 60,000 characters whatever the input (it says what it left out): with a
  # base, the cost diff and the changed or failing stacks first, the others one row each;
  # without one, the plan. The error block after it is cut at 4,000 characters, so the comment
  # stays under GitHub's 65,536 and the sticky comment is always replaced.
  if [ -n "${PLANNER_BASE_REF:-}" ]; then
    planner diff "--base-ref=$PLANNER_BASE_REF" "${target[@]}" "${select[@]}" "${book[@]}" "${options[@]}" "${baseline[@]}" --format markdown -- "${paths[@]}" 2> "$out/stderr.txt" || true
    explain_refusal > /dev/null 2>&1
    note_baseline
  elif [ -f "$out/plan.json" ]; then  # the plan's own lines on standard error are in stderr.txt already
    planner render --format markdown -- "$out/plan.json" 2>> "$out/render.txt" || render_failed=1
  fi
  if [ -n "$render_failed" ]; then
    printf '%s\n## :x: planner: the report could not be rendered\n\n' "<!-- planner-report -->"
    printf '````text\n%s\n````\n' "$RENDER_FAILED"
  fi
  # planner's `info:` lines (the plain Pulumi stacks a folder held, skipped) are information,
  # not errors: their own block, above the errors, cut at 1,000 characters
  grep -a '^planner: info: ' "$out/stderr.txt" > "$out/info.txt"
  grep -av '^planner: info: ' "$out/stderr.txt" > "$out/errors.txt"
  if [ -s "$out/info.txt" ]; then
    printf '\n:information_source: Information:\n\n````text\n'; head -c 1000 "$out/info.txt" | head -n 10
    [ "$(wc -c < "$out/info.txt")" -gt 1000 ] && printf '\nplanner: (cut: the job log has it in full)\n'
    printf '````\n'
  fi
  if [ -s "$out/errors.txt" ]; then
    printf '\n````text\n'; head -c 4000 "$out/errors.txt" | head -n 60
    [ "$(wc -c < "$out/errors.txt")" -gt 4000 ] && printf '\nplanner: (more errors: the full list is in the job log)\n'
    printf '````\n'
  fi
} > "$out/comment.md"

if [ -n "$render_failed" ]; then
  echo "$RENDER_FAILED" >&2
  code=2
fi
{
  python3 -I "${ACTION_PATH:-$(dirname "$0")/..}/action/outputs.py" "$code" "$out/plan.json"
  echo "sarif-file=$([ -f "$out/planner.sarif" ] && echo "$out/planner.sarif")"
  echo "comment-file=$out/comment.md"
  echo "planned=true"
} >> "${GITHUB_OUTPUT:-/dev/stdout}"
