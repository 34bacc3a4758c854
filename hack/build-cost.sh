#!/usr/bin/env bash
# What each program built here costs, and what it shares with the others.
#
#   build-cost.sh record PROGRAM COMMAND...
#       runs COMMAND, which builds PROGRAM (a file, or a folder of
#       programs, or a step of make test such as "go test"), and writes
#       its line of BUILD_COSTS: PROGRAM, the wall time, the CPU time (user
#       and system, of COMMAND's processes) and whether it failed. The line
#       replaces PROGRAM's earlier one, if any: the log says what the last
#       build of each cost.
#   build-cost.sh table
#       prints BUILD_COSTS as a table, with what each program was built
#       with, as its build information says: the Go release, the build tags,
#       and the versions of the Kubernetes libraries and controller-runtime.
#       Two programs share a compiled package only when all of these agree.
#
# The Makefile records every program it builds: a cold run's log says
# where its minutes went, in the order it built them (a program shown
# cheap may be so because an earlier one compiled what they share).
set -euo pipefail

log=${BUILD_COSTS:?BUILD_COSTS names the log}

record() {
  local program=$1 usage rc=0 begin line
  shift
  usage=$(mktemp)
  begin=$(date +%s%N)
  # The times builtin, in a subshell, counts that subshell's children alone.
  ("$@"; status=$?; times >"$usage"; exit "$status") || rc=$?
  line=$(awk -v program="$program" -v begin="$begin" -v end="$(date +%s%N)" -v rc="$rc" '
    function seconds(t, m) { split(t, m, "m"); return m[1] * 60 + m[2] }
    NR == 2 { printf "%s\t%.0f\t%.0f\t%s", program, (end - begin) / 1e9, seconds($1) + seconds($2), rc == 0 ? "" : "failed" }
  ' "$usage")
  mkdir -p "$(dirname "$log")" && touch "$log"
  # Steps may end at once (make test runs two): one rewrites at a time.
  (
    flock 9
    { awk -F '\t' -v program="$program" '$1 != program' "$log" && printf '%s\n' "$line"; } >"$usage"
    mv "$usage" "$log"
  ) 9>>"$log.lock"
  return "$rc"
}

# built-with prints what PROGRAM (the first program of a folder) was built
# with: Go release, tags, and the versions of the libraries most programs
# here compile, "-" for one it does not link.
built-with() {
  go version -m "$1" 2>/dev/null | awk '
    /^[^\t]/ { if (seen++) exit; go = $NF; next }
    $1 == "build" && $2 ~ /^-tags=/ { tags = substr($2, 7) }
    ($1 == "dep" || $1 == "=>") && $2 == "k8s.io/apimachinery" { k8s = $3 }
    ($1 == "dep" || $1 == "=>") && $2 == "sigs.k8s.io/controller-runtime" { cr = $3 }
    END { printf "%s | %s | %s | %s", go ? go : "-", tags ? tags : "-", k8s ? k8s : "-", cr ? cr : "-" }'
}

table() {
  [[ -s $log ]] || { echo "no build recorded in $log" >&2; exit 1; }
  echo "| program | wall | CPU | Go | tags | k8s.io libraries | controller-runtime |"
  echo "|---|---:|---:|---|---|---|---|"
  local program wall cpu failed total_wall=0 total_cpu=0
  while IFS=$'\t' read -r program wall cpu failed; do
    printf '| %s%s | %dm%02ds | %ds | %s |\n' "${program#"$(dirname "$log")"/}" "${failed:+ (failed)}" $((wall / 60)) $((wall % 60)) "$cpu" "$(built-with "$program")"
    total_wall=$((total_wall + wall)) total_cpu=$((total_cpu + cpu))
  done <"$log"
  printf '| all | %dm%02ds | %ds | | | | |\n' $((total_wall / 60)) $((total_wall % 60)) "$total_cpu"
}

case ${1:-} in
record) shift && record "$@" ;;
table) table ;;
*)
  echo "usage: $0 record PROGRAM COMMAND... | table" >&2
  exit 2
  ;;
esac
