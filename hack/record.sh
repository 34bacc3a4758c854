# Sourced by hack/ scripts that read a record of hack/images.
#
# image NAME FILE is the reference the record FILE (`images push
# --record`) holds for the image NAME, pinned by digest.
image() { sed -n "s|^ *\"$1\": \"\(.*\)\",\?$|\1|p" "$2"; }

# recorded_image NAME FILE TARGET is the reference the record FILE holds
# for the image NAME; it fails, naming the make TARGET that pushes it, when
# the record lacks it.
recorded_image() {
  local ref
  ref=$(image "$1" "$2")
  [[ -n $ref ]] || { echo "no $1 image in $2: run make $3" >&2; exit 1; }
  echo "$ref"
}

# quay_image NAME FILE TARGET is the quay.io name, by digest, of the image
# NAME the record FILE holds (the node's registry mirror serves quay.io from
# the local registry), as recorded_image.
quay_image() {
  local ref
  ref=$(recorded_image "$@") || exit 1
  echo "quay.io/${ref#*/}"
}
