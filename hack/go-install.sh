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

cache=$(go env GOMODCACHE)/cache/download
if [ -d "$cache" ] && GOPROXY=file://$cache GOSUMDB=off go install "$@" 2>/dev/null; then
  exit 0
fi

attempts=3
for ((attempt = 1; ; attempt++)); do
  errors=$(mktemp)
  go install "$@" 2> >(tee "$errors" >&2)
  rc=$?
  wait
  # A failure to reach the proxy, and not one of compiling, is worth a retry.
  if ((rc == 0 || attempt == attempts)) ||
    ! grep -qE 'TLS handshake timeout|i/o timeout|connection (reset|refused)|unexpected EOF|(502|503|504) (Bad Gateway|Service Unavailable|Gateway Timeout)' "$errors"; then
    rm -f "$errors"
    exit "$rc"
  fi
  rm -f "$errors"
  echo "go-install: the Go module proxy failed; trying again ($((attempt + 1)) of $attempts)" >&2
  sleep $((attempt * 5))
done
