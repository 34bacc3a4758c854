#!/usr/bin/env bash
# make bundle: the OLM bundle of version VERSION, from config/manifests,
# in bundle/ (manifests, metadata, scorecard tests) and bundle.Dockerfile.
#
# operator-sdk writes most of it. Three fields are set after it:
# - createdAt is the base CSV's (the release's date) rather than the time of
#   generation, so that generating twice gives the same bundle;
# - containerImage is the manager's image;
# - relatedImages lists every image the operator may run: the manager's and
#   the operand images the CRDs default to (operator-sdk lists only images
#   given as RELATED_IMAGE_* variables, which this operator does not read).
#
# The Makefile sets VERSION, IMG, SCORECARD_IMG, CHANNELS, DEFAULT_CHANNEL,
# OPERATOR_SDK and KUSTOMIZE.
set -euo pipefail
cd "$(dirname "$0")/.."

base=config/manifests/bases/seed-operator.clusterserviceversion.yaml
csv=bundle/manifests/seed-operator.clusterserviceversion.yaml

"${OPERATOR_SDK:?}" generate kustomize manifests --interactive=false -q
(cd config/manager && "${KUSTOMIZE:?}" edit set image controller="${IMG:?}")
(cd config/scorecard && "$KUSTOMIZE" edit set image seed-scorecard="${SCORECARD_IMG:?}")
# generate bundle never deletes a manifest that is no longer generated.
rm -rf bundle
"$KUSTOMIZE" build config/manifests |
  "$OPERATOR_SDK" generate bundle -q --overwrite --version "${VERSION:?}" \
    --channels "${CHANNELS:?}" --default-channel "${DEFAULT_CHANNEL:?}"

created_at=$(sed -n 's/^    createdAt: //p' "$base")
sed -i -E \
  -e "s|^(    createdAt: ).*|\1$created_at|" \
  -e "s|^(    containerImage: ).*|\1$IMG|" \
  "$csv"

# The operand images are the image defaults of the CRDs.
operands=$(sed -n 's|^ *default: \([a-z0-9.-]*\.[a-z]*/[^ ]*:[^ ]*\)$|\1|p' config/crd/bases/*.yaml | sort -u)
related=$(for image in "$IMG" $operands; do
  name=${image##*/}
  printf '  - image: %s\n    name: %s\n' "$image" "${name%%:*}"
done)
# Sorted keys: relatedImages comes right before version, at the end of spec.
awk -v related="  relatedImages:
$related" '/^  version: / { print related } { print }' "$csv" >"$csv.new"
mv "$csv.new" "$csv"

"$OPERATOR_SDK" bundle validate ./bundle --select-optional suite=operatorframework
