# Sourced by hack/ scripts that read a record of hack/images.
#
# image NAME FILE is the reference the record FILE (`images push
# --record`) holds for the image NAME, pinned by digest.
image() { sed -n "s|^ *\"$1\": \"\(.*\)\",\?$|\1|p" "$2"; }
