#!/usr/bin/env bash
# Puts what a generator wrote into the tree.
#
#   sync.sh [--mirror] FROM TO
#       makes each file of the folder FROM a file of the folder TO, writing
#       only those whose content differs, each by a rename; with --mirror,
#       also removes TO's files that FROM lacks.
#
# The generators write into a folder of their own and this puts the result
# in place: a file that did not change is not written (its mtime stays),
# and one that did is never seen half-written, so a build or lint that
# reads the tree while another make target regenerates it (make test in
# one terminal, make test-e2e in another) reads either file whole.
set -euo pipefail

mirror=false
if [ "${1:-}" = --mirror ]; then
  mirror=true
  shift
fi
[ $# = 2 ] || { echo "usage: $0 [--mirror] FROM TO" >&2; exit 2; }
from=$1 to=$2

mkdir -p "$to"
(cd "$from" && find . -type f) | while read -r file; do
  if ! cmp -s "$from/$file" "$to/$file"; then
    mkdir -p "$(dirname "$to/$file")"
    tmp=$(mktemp "$to/.sync.XXXXXX")
    cp "$from/$file" "$tmp"
    chmod 644 "$tmp"
    mv -f "$tmp" "$to/$file"
  fi
done
if $mirror; then
  (cd "$to" && find . -type f) | while read -r file; do
    [ -e "$from/$file" ] || rm -f "$to/$file"
  done
fi
