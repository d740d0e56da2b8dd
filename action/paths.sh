# The planner Action's paths: what the `paths` (or `paths-file`) input names, as planner is to
# read it. Sourced (never run) by action/plan.sh, which plans them, and action/install.sh, which
# installs the [pulumi] extra when a Pulumi program may be planned. Runs nothing but bash: the
# names are the pull request's data (docs/security.md).
#
# `planner_paths` sets:
#   paths     the stack files, folders and Pulumi project folders to pass after `--`
#   select    `--include` options (a list of changed files: only those stack files of their folders)
#   left_out  the names that are neither (README.md), or were deleted
#   here      1 when `paths` is empty: planner plans the Pulumi project here (its program, or its
#             stack files), as `planner plan` with no path does
#   programs  1 when a Python Pulumi project holds a path (at or above it, in the checkout): its
#             program may be planned, so the install step adds the [pulumi] extra
#
# `paths` empty (the default): the Pulumi project here when there is a Pulumi.yaml (`here`), else
# `stacks/` (the default before programs were planned). On one line: the stack files and folders
# given, each an error if unusable. On several lines (a list of changed files, one per line): a
# stack file in it is planned through its folder with `--include` (a plain Pulumi stack is then
# skipped, not an error; one under a folder also given comes with that folder), and a file the
# change deleted is not there to plan. Either way a program's file (a Python file, Pulumi.yaml,
# requirements*.txt, a JSON, YAML or TOML file: planner.core.input.stack_sources.PROGRAM_FILE),
# changed or deleted, stands for the nearest Pulumi project above it, whose folder is planned
# (planner plans its program for its stacks); any other file (README.md) is left out. With
# nothing left, planner is not run and the step says so.
set -f # no name is ever a pattern to the shell: `st[a]cks/x` and `*` are the names they spell

# A name as the log and the comment show it: GitHub's escaping of workflow-command data (`%`,
# CR, LF), other control characters as `?`; a CR or LF in a file name never starts a line.
shown_name() {
  local s="${1//%/%25}"
  s="${s//$'\r'/%0D}"; s="${s//$'\n'/%0A}"
  printf '%s' "${s//[[:cntrl:]]/?}"
}
# A name as planner's `--include` reads it: fnmatch's `*`, `?` and `[` matched literally.
glob_literal() {
  local s="$1" out="" c i
  for ((i = 0; i < ${#s}; i++)); do
    c="${s:i:1}"
    case "$c" in '*' | '?' | '[') out+="[$c]" ;; *) out+="$c" ;; esac
  done
  printf '%s' "$out"
}
trim() { local s="$1"; s="${s#"${s%%[![:blank:]]*}"}"; printf '%s' "${s%"${s##*[![:blank:]]}"}"; }
is_stack_file() { [[ "${1##*/}" =~ ^Pulumi\.[A-Za-z0-9_.-]+\.ya?ml$ ]]; }  # planner.core.input.stack_files._STACK_FILE
# planner.core.input.stack_sources.PROGRAM_FILE
is_program_file() { [[ "${1##*/}" =~ ^(.+\.(py|pyi|json|ya?ml|toml|cfg)|requirements[^/]*\.txt)$ ]]; }
has_project() { [ -f "$1/Pulumi.yaml" ] || [ -f "$1/Pulumi.yml" ]; }
# A Python Pulumi project (`runtime: python`, or `runtime:` then `name: python`), read with grep only.
is_python_project() {
  local f="$1/Pulumi.yaml"
  [ -f "$f" ] || f="$1/Pulumi.yml"
  grep -Eqs "^runtime:[[:space:]]*[\"']?python|^[[:space:]]+name:[[:space:]]*[\"']?python[\"']?[[:space:]]*$" -- "$f"
}
# The nearest folder at or above the folder of $1 (or $1 itself, a folder) that holds a Pulumi
# project, within the checkout; printed, or status 1 when there is none.
nearest_project() {
  local d="$1"
  if ! [ -d "$d" ]; then
    if [[ "$d" == */* ]]; then d="${d%/*}"; else d="."; fi
  fi
  d="${d%/}"; [ -n "$d" ] || d="/"
  while :; do
    if has_project "$d"; then printf '%s' "$d"; return 0; fi
    case "$d" in "." | "/" | ..* | */..) return 1 ;; esac
    if [[ "$d" == */* ]]; then d="${d%/*}"; [ -n "$d" ] || d="/"; else d="."; fi
  done
}

planner_paths() {
  # File names are data (docs/security.md): records, never words; literal paths, never globs;
  # escaped whenever printed. PLANNER_PATHS_FILE (the `paths-file` input): NUL-delimited names
  # (`git diff --name-only -z`), each a changed file. Else PLANNER_PATHS: on several lines, one
  # name a line (blanks around it trimmed); on one line, that line if it names a path as a
  # whole (`my stacks/`), else the paths separated by spaces.
  raw=()
  lines=0
  here=""
  programs=""
  local name line p f dir covered project
  if [ -n "${PLANNER_PATHS_FILE:-}" ]; then
    while IFS= read -r -d '' name || [ -n "$name" ]; do
      if [ -n "$name" ]; then raw+=("$name"); fi
    done < "$PLANNER_PATHS_FILE"
    lines=2  # a list of changed files, however many
  else
    given=()
    while IFS= read -r line || [ -n "$line" ]; do
      line="$(trim "$line")"
      if [ -n "$line" ]; then given+=("$line"); fi
    done <<< "${PLANNER_PATHS:-}"
    lines=${#given[@]}
    if [ "$lines" -gt 1 ]; then
      raw=("${given[@]}")
    elif [ "$lines" -eq 1 ]; then
      if [ -e "${given[0]}" ]; then
        raw=("${given[0]}")
      else
        read -r -a raw <<< "${given[0]}"
      fi
    elif has_project "."; then
      here=1  # no paths: the Pulumi project here, as `planner plan` with no path plans it
      if is_python_project "."; then programs=1; fi
    else
      raw=("stacks/")
    fi
  fi
  paths=()
  select=()
  files=()
  left_out=()
  local projects=()
  for p in "${raw[@]}"; do
    if ! [ -e "$p" ] && ! is_stack_file "$p" && is_program_file "$p" && project="$(nearest_project "$p")"; then
      projects+=("$project")  # a program file the change deleted: its project is still there
    elif [ -d "$p" ] || { [ "$lines" -le 1 ] && ! [ -e "$p" ]; }; then
      paths+=("$p")  # a folder, or (given on one line) a path planner reports as missing
    elif [ -f "$p" ] && ! is_stack_file "$p"; then
      if is_program_file "$p" && project="$(nearest_project "$p")"; then
        projects+=("$project")
      else
        left_out+=("$p")
      fi
    elif [ "$lines" -le 1 ]; then
      paths+=("$p")
    elif is_stack_file "$p" && [ -f "$p" ]; then
      files+=("$p")
    else
      left_out+=("$p")  # deleted by the change, or not a file
    fi
    if [ -e "$p" ] && project="$(nearest_project "$p")" && is_python_project "$project"; then
      programs=1
    fi
  done
  for project in "${projects[@]}"; do  # each project once, planned whole (its program for its stacks)
    covered=""
    for f in "${paths[@]}"; do
      if [ "${project%/}" = "${f%/}" ]; then covered=1; fi
    done
    if [ -z "$covered" ]; then paths+=("$project"); fi
    if is_python_project "$project"; then programs=1; fi
  done
  folders=("${paths[@]}")
  for p in "${files[@]}"; do
    dir="${p%/*}"; if [ "$dir" = "$p" ]; then dir="."; fi
    covered=""
    for f in "${folders[@]}"; do
      if [ "${dir%/}" = "${f%/}" ]; then covered=1; fi
    done
    if [ -n "$covered" ]; then continue; fi  # its folder is planned whole
    paths+=("$dir"); select+=("--include=$(glob_literal "$p")")
  done
  if [ ${#select[@]} -gt 0 ]; then
    # `--include` selects in every folder: a folder given whole keeps all its stack files
    for f in "${folders[@]}"; do select+=("--include=$(glob_literal "${f%/}")/*"); done
    # each folder once (records compared whole: a name may hold any character but NUL); with
    # changed files named, only those files of their folders are read
    declare -A seen=()
    local unique=()
    for p in "${paths[@]}"; do
      if [ -n "${seen["x$p"]:-}" ]; then continue; fi
      seen["x$p"]=1; unique+=("$p")
    done
    paths=("${unique[@]}")
  fi
  return 0
}
