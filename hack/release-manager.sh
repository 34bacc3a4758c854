#!/usr/bin/env bash
# release-manager.sh COMMIT OUT: build the manager of a released version,
# from its commit's source, into OUT, with the modules the operator and the
# local cluster compile today rather than those its go.mod pinned.
#
# The OLM suite runs a release's manager to upgrade from it: what it tests
# is that release's code, its bundle and the objects it leaves behind. The
# releases require the operator's Kubernetes libraries and
# controller-runtime, but built with its own go.mod each one resolved
# dozens of other modules (OpenTelemetry, go-openapi, jsonpatch) to other
# versions, so every package above them, the Kubernetes libraries
# included, compiled again; and 0.1.0's metrics filter imports
# k8s.io/apiserver, which only the cluster's API server compiles. Resolved
# to the cluster's modules, and the operator's where the cluster has none,
# each package it imports is one those builds compiled.
set -euo pipefail

commit=$1 out=$(realpath -m "$2")
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT

git archive "$commit" | tar -x -C "$src"
module=$(go list -m)
cluster_modules=$(cd hack/tools/cluster && go list -m -f '{{.Path}}' all)
# The operator's modules that the cluster's module lacks, at the operator's
# versions; where both compile a module, they agree on its version
# (hack/tools/resolved_test.go).
requires=$(go list -m -f '{{if not .Main}}{{.Path}}@{{.Version}}{{end}}' all |
  awk -F@ 'NR == FNR { have[$1]; next } !($1 in have) { print "-require=" $0 }' <(echo "$cluster_modules") -)

cp hack/tools/cluster/go.mod "$src/go.mod"
sort -u go.sum hack/tools/cluster/go.sum >"$src/go.sum"
cd "$src"
# shellcheck disable=SC2086 # a flag a word
go mod edit -module="$module" $requires
go build -mod=mod -ldflags="-s -w" -o "$out" .
