#!/usr/bin/env bash
# make plugin-dist: kubectl-seed for every platform krew installs it on,
# each as kubectl-seed_v<VERSION>_<os>_<arch>.tar.gz in OUT, with
# sha256sums.txt and the krew manifest, plugins/seed.yaml with the
# version and the checksums filled in.
#
# The archives are reproducible: the same sources and Go release give the
# same bytes (-trimpath, no cgo, sorted names, no times, no owners), so
# that anyone can check a release's checksums.
#
# The Makefile sets VERSION, OUT and GO, and exports GOFLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."

platforms="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"

rm -rf "${OUT:?}"
mkdir -p "$OUT"
manifest=$(sed "s/{{VERSION}}/${VERSION:?}/g" plugins/seed.yaml)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for platform in $platforms; do
  os=${platform%/*} arch=${platform#*/}
  exe=kubectl-seed
  [ "$os" = windows ] && exe=kubectl-seed.exe
  if ! grep -qF "{{SHA256 $os $arch}}" <<<"$manifest"; then
    echo "plugins/seed.yaml names no archive for $os/$arch" >&2
    exit 1
  fi
  mkdir "$work/$os-$arch"
  GOOS=$os GOARCH=$arch "${GO:?}" build -o "$work/$os-$arch/$exe" ./cmd/kubectl-seed
  archive=kubectl-seed_v${VERSION}_${os}_${arch}.tar.gz
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$work/$os-$arch" -c "$exe" | gzip -n -9 > "$OUT/$archive"
  sum=$(sha256sum "$OUT/$archive" | cut -d' ' -f1)
  manifest=${manifest//"{{SHA256 $os $arch}}"/$sum}
  echo "$archive $sum"
done
(cd "$OUT" && sha256sum ./*.tar.gz | sed 's| \./| |' > sha256sums.txt)
if grep -q '{{' <<<"$manifest"; then
  echo "plugins/seed.yaml names a platform this script does not build:" >&2
  grep '{{' <<<"$manifest" >&2
  exit 1
fi
printf '%s\n' "$manifest" > "$OUT/seed.yaml"
echo "wrote $OUT: the archives, sha256sums.txt and the krew manifest seed.yaml"
