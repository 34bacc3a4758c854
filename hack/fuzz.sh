#!/usr/bin/env bash
# Runs every fuzz target of the controllers' packages for FUZZTIME each, or
# with "build" only compiles their instrumented test programs into the build
# cache. It fails when a package cannot be listed or when no fuzz target is
# found at all: a fuzz run that fuzzes nothing is not a pass.
#
# A run that passes writes the digest of what the targets reach to
# FUZZED (test/fuzzed.sum): the operator's Go files that the controllers'
# packages and their tests import, go.sum, the CRDs and the corpora.
# "changed" tells whether the digest differs from FUZZED, that is, whether
# the code has changed since it was last fuzzed; "digest" prints it.
# Neither compiles anything.
#
# usage: fuzz.sh build|run|changed|digest
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
GO=${GO:-go}
FUZZED=test/fuzzed.sum

digest() {
  # shellcheck disable=SC2016 # a template of go list's, not the shell's
  {
    $GO list -deps -test -f '{{if and .Module .Module.Main (ne .Name "main")}}{{range .GoFiles}}{{$.Dir}}/{{.}}
{{end}}{{range .TestGoFiles}}{{$.Dir}}/{{.}}
{{end}}{{end}}' ./controllers/... | sed -n "s|^$PWD/||p" || exit 1
    echo go.sum
    find config/crd/bases controllers/*/testdata/fuzz -type f
  } | sort -u | xargs sha256sum | sha256sum | cut -d' ' -f1
}

case $mode in
build | run) ;;
digest)
  digest
  exit
  ;;
changed)
  [[ "$(digest)" != "$(cat "$FUZZED" 2>/dev/null)" ]]
  exit
  ;;
*)
  echo "usage: $0 build|run|changed|digest" >&2
  exit 2
  ;;
esac

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
if [[ $mode == run ]]; then
  digest >"$FUZZED"
fi
