#!/usr/bin/env bash
# The planner Action's install step: pulumi-cluster-planner into its own virtualenv, on PATH.
#
# ACTION_PATH is the Action's folder (github.action_path; GITHUB_* variables cannot be set in
# `env:`). PLANNER_VERSION empty: the Action's own source (the ref written after `uses: ...@`), so the
# Action and the CLI are the same release; else that version from PyPI. A runner that
# already has planner on PATH (a self-hosted image; tests/test_action.py) installs nothing.
#
# The job's working directory is the pull request's checkout: a `venv.py` or `pip.py` there
# must not run. So this step reads the paths there with bash alone, then leaves it, and runs
# Python only isolated (`-I`: neither the working directory nor the script's folder is on
# sys.path; docs/security.md).
set -euo pipefail

# Whether a Pulumi program may be planned: the `program` input, or a path that lies in a Python
# Pulumi project (action/paths.sh, which reads the names with bash alone, as the plan step will).
# Then the [pulumi] extra is installed, and the `programs` output lets the next step prepare
# planner's namespace jail.
programs=""
if [ "${PLANNER_MODE:-all}" != publish ]; then  # the publish job plans nothing
  # shellcheck source=action/paths.sh
  . "${ACTION_PATH:-$(dirname "$0")/..}/action/paths.sh"
  planner_paths
  set +f
  if [ -n "${PLANNER_PROGRAM:-}" ]; then programs=1; fi
fi
echo "programs=$([ -n "$programs" ] && echo true || echo false)" >> "${GITHUB_OUTPUT:-/dev/null}"

if command -v planner >/dev/null && [ -z "${PLANNER_VERSION:-}" ]; then
  echo "planner already installed: $(planner --version)"
  exit 0
fi
cd "${RUNNER_TEMP:-/tmp}"
venv="${RUNNER_TEMP:-/tmp}/planner-venv"
python3 -I -m venv "$venv"
pip=("$venv/bin/python" -I -m pip install --quiet --disable-pip-version-check)
# the base plans stack files; a program needs the [pulumi] extra (pulumi, pulumi-aws)
extra=""
if [ -n "$programs" ]; then extra="[pulumi]"; fi
if [ -n "${PLANNER_VERSION:-}" ]; then
  "${pip[@]}" "pulumi-cluster-planner${extra}==$PLANNER_VERSION"
else
  "${pip[@]}" "${ACTION_PATH}${extra}"
fi
echo "$venv/bin" >> "${GITHUB_PATH:-/dev/null}"
"$venv/bin/planner" --version
