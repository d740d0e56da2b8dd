#!/usr/bin/env bash
# The planner Action's publish step (`mode: publish`): action.yml runs it, tests/test_action_modes.py
# runs it locally.
#
# The trusted half of the two-job design (docs/security.md, docs/tasks/pull-requests.md). It
# runs in a `workflow_run` job that holds the write token and never checks out or runs the pull
# request's code; its input, the artifact the pull-request job uploaded (PLANNER_ARTIFACT_DIR:
# plan.json, diff.json with a base, pr.txt, or the `not-run` marker), is that job's, so the pull
# request's: untrusted data. Every report is validated whole by `planner render` (types, finite
# numbers, lines, sizes: one line and exit 2 for a bad one) and re-written from the validated
# document before anything is rendered from it; the comment, the annotations and the SARIF are
# rendered here, with every text escaped for its format; the outputs and the gate come from the
# validated report (`planner render --exit-code`), never from a file or output that job wrote.
#
# The pull request to comment on: PR_NUMBER (the event's own, `workflow_run.pull_requests`,
# given for a pull request of this repository), else the artifact's pr.txt (digits only), which
# is used only once `gh` (GH_TOKEN) confirms that pull request's head is HEAD_SHA, the commit
# the run planned; otherwise nothing is posted, and the step says why.
#
# Writes to $GITHUB_OUTPUT: exit-code, total-cost, sarif-file, comment-file, planned, pr-number.
set -uo pipefail
set -f

in="${PLANNER_ARTIFACT_DIR:?the folder of the downloaded artifact}"
out="${PLANNER_OUT:-${RUNNER_TEMP:-.}/planner-publish}"
outputs="${ACTION_PATH:-$(dirname "$0")/..}/action/outputs.py"
mkdir -p "$out"
rm -f "$out/plan.json" "$out/diff.json" "$out/planner.sarif" "$out/comment.md" "$out/errors.txt"
marker="<!-- planner-report -->"

# --- the pull request ---------------------------------------------------------------
pr=""
if [[ "${PR_NUMBER:-}" =~ ^[1-9][0-9]{0,9}$ ]]; then
  pr="$PR_NUMBER"
elif [ -f "$in/pr.txt" ]; then
  claimed="$(head -c 16 "$in/pr.txt" | tr -d '\n')"
  if ! [[ "$claimed" =~ ^[1-9][0-9]{0,9}$ ]]; then
    echo "planner: the artifact's pr.txt is not a pull request number: nothing is posted"
  elif [ -z "${GH_TOKEN:-}" ] || [ -z "${HEAD_SHA:-}" ] || ! command -v gh > /dev/null; then
    echo "planner: pull request #$claimed cannot be confirmed (no gh, token or head commit): nothing is posted"
  else
    head="$(gh api "repos/${GITHUB_REPOSITORY:-}/pulls/$claimed" --jq .head.sha 2> /dev/null || true)"
    if [ "$head" = "$HEAD_SHA" ]; then
      pr="$claimed"
    else
      echo "planner: pull request #$claimed's head is not the planned commit $HEAD_SHA: nothing is posted"
    fi
  fi
fi

finish() {  # code, planned
  {
    if [ "$1" = not-run ]; then
      python3 -I "$outputs" not-run
    else
      python3 -I "$outputs" "$1" "$out/plan.json"
    fi
    echo "sarif-file=$([ -f "$out/planner.sarif" ] && echo "$out/planner.sarif")"
    echo "comment-file=$out/comment.md"
    echo "planned=$2"
    echo "pr-number=$pr"
  } >> "${GITHUB_OUTPUT:-/dev/stdout}"
  exit 0  # the Action's gate step reads exit-code, which came from the validated report
}

refused() {  # why: the comment and the log say it; the gate fails (exit code 2)
  echo "$1" >&2
  {
    printf '%s\n## :x: planner: the report could not be used\n\n' "$marker"
    printf '````text\n'; head -c 2000 "$out/errors.txt" 2> /dev/null | head -n 5; printf '%s\n````\n' "$1"
  } > "$out/comment.md"
  rm -f "$out/plan.json" "$out/planner.sarif"
  finish 2 true
}

# --- nothing planned ----------------------------------------------------------------
if ! [ -f "$in/plan.json" ] && [ -f "$in/not-run" ]; then
  {
    printf '%s\n## planner: no stack or program changed\n\n' "$marker"
    printf 'No stack file (`Pulumi.<stack>.yaml`) was left to plan, so planner did not run: '
    printf 'the plan and cost an earlier push posted here no longer apply.\n'
  } > "$out/comment.md"
  finish not-run false
fi
if ! [ -f "$in/plan.json" ]; then
  refused "planner: the artifact holds no plan.json (the plan could not start: the pull-request job's log says why); the gate fails, exit code 2"
fi

# --- validated, then rendered -------------------------------------------------------
# `render --format json` reads the report as a typed document and writes it back: what every
# later step reads is planner's own serialisation of a validated document.
if ! planner render --format json "--output=$out/plan.json" -- "$in/plan.json" 2> "$out/errors.txt"; then
  refused "planner: the plan report is not a valid planner report (line above); nothing of it is posted; the gate fails, exit code 2"
fi
planner render --exit-code "--fail-on=${PLANNER_FAIL_ON:-error}" --format json -- "$out/plan.json" > /dev/null 2>> "$out/errors.txt"
code=$?
case "$code" in 0 | 1 | 2) ;; *) refused "planner: planner render failed (exit code $code); the gate fails, exit code 2" ;; esac
planner render --format github -- "$out/plan.json" || refused "planner: the annotations could not be rendered; the gate fails, exit code 2"
planner render --format sarif "--output=$out/planner.sarif" -- "$out/plan.json" 2>> "$out/errors.txt" \
  || refused "planner: the SARIF could not be rendered; the gate fails, exit code 2"
source="$out/plan.json"
if [ -f "$in/diff.json" ]; then  # with a base: the cost diff is the comment, once it is valid too
  if planner render --format json "--output=$out/diff.json" -- "$in/diff.json" 2>> "$out/errors.txt"; then
    source="$out/diff.json"
  else
    echo "planner: the diff report is not valid (line above): the comment shows the plan" >&2
  fi
fi
planner render --format markdown "--output=$out/comment.md" -- "$source" 2>> "$out/errors.txt" \
  || refused "planner: the comment could not be rendered; the gate fails, exit code 2"
finish "$code" true
