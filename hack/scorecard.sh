#!/usr/bin/env bash
# Runs the scorecard tests of bundle/tests/scorecard/config.yaml on this
# machine, as `operator-sdk scorecard` runs them in pods: each test's program
# sees the bundle at /bundle and prints a v1alpha3 TestStatus. Here /bundle
# is a bind mount in a private mount namespace, so nothing is mounted on the
# host (only the empty mount point is created, if missing). The project's
# own tests run against the cluster KUBECONFIG names, with the operator
# running there.
#
# SCORECARD_TEST and SEED_SCORECARD are the two programs; SCORECARD_NAMESPACE
# is where the project's tests create their resources.
set -euo pipefail
cd "$(dirname "$0")/.."

config=bundle/tests/scorecard/config.yaml

# tests prints "PROGRAM TEST" for each test of the configuration: the two
# items of its entrypoint.
tests() {
  awk '/entrypoint:/ { n = 2; next } n > 0 && /^ *- / { printf "%s%s", $2, (--n ? " " : "\n") }' "$config"
}

if [[ ! -d /bundle ]]; then
  mkdir /bundle || { echo "scorecard: cannot create the mount point /bundle (run as root)" >&2; exit 1; }
  trap 'rmdir /bundle' EXIT
fi

failed=0
ran=0
while read -r program test; do
  case $program in
    scorecard-test) binary=${SCORECARD_TEST:?} ;;
    seed-scorecard) binary=${SEED_SCORECARD:?} ;;
    *) echo "scorecard: unknown program $program in $config" >&2; exit 1 ;;
  esac
  ran=$((ran + 1))
  output=$(unshare --mount sh -c 'mount --bind "$1" /bundle && exec "$2" "$3"' sh "$PWD/bundle" "$binary" "$test" 2>&1) || true
  state=$(sed -n 's/^ *"state": "\(.*\)",\{0,1\}$/\1/p' <<<"$output" | head -n 1)
  printf '%-6s %s\n' "${state:-error}" "$test"
  if [[ $state != pass ]]; then
    failed=1
    sed 's/^/       /' <<<"$output"
  fi
done < <(tests)
# A configuration this script cannot read runs nothing: that is no pass.
((ran > 0)) || { echo "scorecard: no test found in $config" >&2; exit 1; }
exit "$failed"
