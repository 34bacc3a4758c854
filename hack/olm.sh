#!/usr/bin/env bash
# make olm-up / olm-down: installs OLM v0 in the cluster KUBECONFIG names,
# from its own Helm chart (deploy/chart of the pinned module, with the values
# of its upstream release) and the images `make olm-images` pushed, as
# `operator-sdk olm install` lays it out: CRDs, the olm and operators
# namespaces, olm-operator, catalog-operator, and the packageserver, which
# OLM installs from its CSV and which serves packagemanifests through an
# APIService. The upstream chart's community CatalogSource is left out: its
# image cannot be had here.
#
# OLM's namespace is steered onto the real node, so its pods, the catalog
# pods and the bundle unpack Jobs really run.
#
#   olm.sh up | down
set -euo pipefail

cd "$(dirname "$0")/.."
: "${KUBECONFIG:?}" "${HELM:?}" "${OLM_MODULE_DIR:?}" "${OLM_IMAGES_RECORD:?}" "${STEER:?}"
export KUBECONFIG
chart=$OLM_MODULE_DIR/deploy/chart
namespace=olm
apiservice=v1.packages.operators.coreos.com

# shellcheck source=hack/record.sh
source hack/record.sh

render() {
  local olm opm
  olm=$(quay_image olm "$OLM_IMAGES_RECORD" olm-images)
  opm=$(quay_image opm "$OLM_IMAGES_RECORD" olm-images)
  "$HELM" template olm "$chart" --values "$OLM_MODULE_DIR/deploy/upstream/values.yaml" \
    --set installType=local \
    --set olm.image.ref="$olm",catalog.image.ref="$olm",package.image.ref="$olm" \
    --set catalog.opmImageArgs=--opmImage="$opm"
}

up() {
  kubectl apply --server-side --force-conflicts -f "$chart/crds" >/dev/null
  kubectl wait --for=condition=Established --timeout=60s -f "$chart/crds" >/dev/null
  kubectl create namespace "$namespace" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  $STEER "$namespace" >/dev/null
  render | kubectl apply --server-side --force-conflicts -f - >/dev/null
  echo "olm: waiting for olm-operator, catalog-operator and the packageserver"
  kubectl rollout status --namespace="$namespace" --timeout=180s deployment/olm-operator deployment/catalog-operator
  # OLM installs the packageserver from the CSV the chart brings.
  for ((i = 0; ; i++)); do
    [[ $(kubectl get csv packageserver --namespace="$namespace" -o jsonpath='{.status.phase}' --ignore-not-found) == Succeeded ]] && break
    ((i < 180)) || { echo "olm: the packageserver's CSV did not succeed in 180s" >&2; exit 1; }
    sleep 1
  done
  kubectl wait --for=condition=Available --timeout=120s "apiservice/$apiservice" >/dev/null
  echo "olm: $(kubectl get deployment olm-operator --namespace="$namespace" -o jsonpath='{.spec.template.spec.containers[0].image}') is up"
}

down() {
  if ! kubectl get crd clusterserviceversions.operators.coreos.com >/dev/null 2>&1; then
    echo "olm: not installed"
    return
  fi
  # While OLM runs: what it installed goes first, so it can let go.
  kubectl delete subscriptions.operators.coreos.com,installplans.operators.coreos.com,catalogsources.operators.coreos.com \
    --all --all-namespaces --ignore-not-found --wait=true >/dev/null
  kubectl delete clusterserviceversions.operators.coreos.com --all --all-namespaces --ignore-not-found --wait=true >/dev/null
  kubectl delete "apiservice/$apiservice" --ignore-not-found >/dev/null
  # The chart's objects need OLM's CRDs to be named: they go before them.
  render | kubectl delete --ignore-not-found --wait=true -f - >/dev/null
  kubectl delete -f "$chart/crds" --ignore-not-found >/dev/null
  # OLM makes a ClusterRole per OperatorGroup and API, and never deletes
  # them.
  kubectl get clusterroles -o name | grep -E '^clusterrole.rbac.authorization.k8s.io/olm\.og\.' |
    xargs -r kubectl delete --ignore-not-found >/dev/null
  echo "olm: removed"
}

case ${1:-} in
up) up ;;
down) down ;;
*) echo "usage: olm.sh up|down" >&2; exit 2 ;;
esac
