#!/usr/bin/env bash
# The planner Action's install step: pulumi-cluster-planner into its own virtualenv, on PATH.
#
# ACTION_PATH is the Action's folder (github.action_path; GITHUB_* variables cannot be set in
# `env:`). PLANNER_VERSION empty: the Action's own source (the ref written after `uses: ...@`), so the
# Action and the CLI are the same release; else that version from PyPI. A runner that
# already has planner on PATH (a self-hosted image; tests/test_action.py) installs nothing.
set -euo pipefail

if command -v planner >/dev/null && [ -z "${PLANNER_VERSION:-}" ]; then
  echo "planner already installed: $(planner --version)"
  exit 0
fi
venv="${RUNNER_TEMP:-/tmp}/planner-venv"
python3 -m venv "$venv"
if [ -n "${PLANNER_VERSION:-}" ]; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check "pulumi-cluster-planner==$PLANNER_VERSION"
else
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$ACTION_PATH"
fi
echo "$venv/bin" >> "${GITHUB_PATH:-/dev/null}"
"$venv/bin/planner" --version
