#!/usr/bin/env bash
# The Debian packages the local cluster's real node needs:
#
#   debian.sh install PKG...    installs the packages that are missing
#                               (runc, nftables, conntrack: programs the
#                               node runs on the host)
#   debian.sh download DIR PKG... downloads the packages' .deb files into
#                               DIR, unpacked later into images (busybox,
#                               nginx and its libraries); nothing is
#                               installed
#
# Package lists are refreshed first when apt knows no version of a
# package, as on a fresh machine.
set -euo pipefail

apt_ready() {
  local pkg
  for pkg in "$@"; do
    if ! apt-cache policy "$pkg" 2>/dev/null | grep -q 'Candidate: [^(]'; then
      apt-get update -qq
      return
    fi
  done
}

install() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  ((${#missing[@]} == 0)) && return
  apt_ready "${missing[@]}"
  echo "debian: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

download() {
  local dir=$1
  shift
  mkdir -p "$dir"
  apt_ready "$@"
  # apt drops root to download, which cannot write an arbitrary folder.
  (cd "$dir" && rm -f ./*.deb && apt-get download -qq -o APT::Sandbox::User=root "$@")
}

case ${1:-} in
  install) shift; install "$@" ;;
  download) shift; download "$@" ;;
  *) echo "usage: $0 install PKG... | download DIR PKG..." >&2; exit 2 ;;
esac
