#!/usr/bin/env bash
# Runs every fuzz target of the controllers' packages for FUZZTIME each, or
# with "build" only compiles their instrumented test programs into the build
# cache. It fails when a package cannot be listed or when no fuzz target is
# found at all: a fuzz run that fuzzes nothing is not a pass.
#
# usage: fuzz.sh build|run
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
[[ $mode == build || $mode == run ]] || { echo "usage: $0 build|run" >&2; exit 2; }
GO=${GO:-go}

packages=$($GO list ./controllers/...)
found=0
for package in $packages; do
  listed=$($GO test -list '^Fuzz' "$package") || { echo "fuzz: cannot list the tests of $package" >&2; exit 1; }
  targets=$(grep '^Fuzz' <<<"$listed" || true)
  [[ -n $targets ]] || continue
  if [[ $mode == build ]]; then
    $GO test -c -o /dev/null -fuzz . "$package"
    found=$((found + $(wc -l <<<"$targets")))
    continue
  fi
  for target in $targets; do
    echo "fuzzing $package $target for ${FUZZTIME:?}"
    $GO test "$package" -run '^$' -fuzz "^$target\$" -fuzztime "$FUZZTIME"
    found=$((found + 1))
  done
done
((found > 0)) || { echo "fuzz: no fuzz target under ./controllers" >&2; exit 1; }
echo "fuzz: $found targets"
