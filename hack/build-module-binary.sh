#!/usr/bin/env bash
# Builds a main package from a module that is not meant to be required as a
# dependency: its go.mod replaces sibling modules with local paths (as
# k8s.io/kubernetes does with its staging repositories and etcd with its
# sub-modules). Each such replace is turned into the published version of the
# sibling module, in a throw-away module, so the build uses only the Go module
# proxy.
#
# usage: build-module-binary.sh MODULE VERSION SIBLING_VERSION PACKAGE OUTPUT [LDFLAGS]
set -euo pipefail

module=$1 version=$2 sibling_version=$3 package=$4 output=$5 ldflags=${6:-}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

go mod init seed-operator.local/build >/dev/null 2>&1
upstream_gomod=$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
[[ -f "$upstream_gomod" ]] || { echo "cannot find go.mod of $module@$version" >&2; exit 1; }

go mod edit -require="$module@$version"
# Lines such as "k8s.io/api => ./staging/src/k8s.io/api", inside or outside a
# replace block, name the siblings. Replaces of modules the upstream does not
# require (etcd's guards against forbidden imports) are left out.
required=$(awk '/^require \(/ {block = 1; next} block && /^\)/ {block = 0} block {print $1} /^require [^(]/ {print $2}' "$upstream_gomod")
sed -n 's/^[[:space:]]*\(replace[[:space:]]\+\)\?\([^[:space:]]\+\)[[:space:]]\+=>[[:space:]]\+\.\{1,2\}\/.*$/\2/p' "$upstream_gomod" |
  while read -r sibling; do
    if grep -qxF "$sibling" <<<"$required"; then
      go mod edit -replace="$sibling=$sibling@$sibling_version"
    fi
  done

GOFLAGS="-mod=mod ${GOFLAGS:-}" go get "$package@$version" >/dev/null
GOFLAGS="-mod=mod ${GOFLAGS:-}" go build -trimpath -ldflags "$ldflags" -o "$output" "$package"
echo "built $output from $module@$version"
