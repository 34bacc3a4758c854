#!/usr/bin/env bash
# go-install.sh ARGS...: go install ARGS (packages at a version), from the
# module cache alone when it holds every module the build needs, so that
# a warm machine asks the network nothing; else through GOPROXY, tried
# again when the network, not the build, failed.
#
# go install pkg@version asks the proxy about every path above the
# package's module, and about the module's latest version (for its
# deprecation notice), even when the module cache has the version: a slow
# TLS handshake with the proxy then failed a build that needed nothing new.
set -uo pipefail

errors=$(mktemp)
trap 'rm -f "$errors"' EXIT

cache=$(go env GOMODCACHE)/cache/download
# The checksum database is not asked: what the cache holds was checked
# against it when it was downloaded.
if [ -d "$cache" ]; then
  GOPROXY=file://$cache GOSUMDB=off go install "$@" 2>"$errors" && exit 0
  rc=$?
  # Only a module the cache lacks sends the build to the network; a
  # failed compile is reported as it is.
  if ! grep -q "file://$cache" "$errors"; then
    cat "$errors" >&2
    exit "$rc"
  fi
fi

attempts=3
for ((attempt = 1; ; attempt++)); do
  go install "$@" 2>"$errors"
  rc=$?
  cat "$errors" >&2
  # A request to the proxy that failed on the way, and not an answer or a
  # compile, is worth a retry.
  if ((rc == 0 || attempt == attempts)) || ! grep 'https://' "$errors" |
    grep -qE 'timeout|Timeout|connection (reset|refused)|unexpected EOF|no such host|server misbehaving|GOAWAY|: (500|502|503|504) '; then
    exit "$rc"
  fi
  echo "go-install: the Go module proxy failed; trying again ($((attempt + 1)) of $attempts)" >&2
  sleep $((attempt * 5))
done
