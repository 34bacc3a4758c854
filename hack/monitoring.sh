#!/usr/bin/env bash
# make monitoring-up / monitoring-down: installs prometheus-operator in the
# cluster KUBECONFIG names, from its release manifests (bundle.yaml of the
# pinned module: the CRDs, its RBAC and Deployment) and the images `make
# monitoring-images` pushed, and one Prometheus that selects every
# ServiceMonitor and PrometheusRule in the cluster, as a platform team's
# does. Prometheus' ServiceAccount may get /metrics, as kube-prometheus'
# may: the operator's metrics endpoint asks the API server whether it can.
#
# The namespace is steered onto the real node.
#
#   monitoring.sh up | down
set -euo pipefail

cd "$(dirname "$0")/.."
: "${KUBECONFIG:?}" "${KUSTOMIZE:?}" "${PROMETHEUS_OPERATOR_MODULE_DIR:?}" "${MONITORING_IMAGES_RECORD:?}" "${STEER:?}"
export KUBECONFIG
namespace=monitoring

# shellcheck source=hack/record.sh
source hack/record.sh

# recorded NAME is the reference of the image NAME make monitoring-images
# pushed.
recorded() { recorded_image "$1" "$MONITORING_IMAGES_RECORD" monitoring-images; }

# operator writes upstream's bundle in this namespace, with the images
# built here.
operator() {
  local dir image reloader
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' RETURN
  cp "$PROMETHEUS_OPERATOR_MODULE_DIR/bundle.yaml" "$dir/" && chmod u+w "$dir/bundle.yaml"
  image=$(recorded prometheus-operator)
  reloader=$(recorded prometheus-config-reloader)
  cat >"$dir/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: $namespace
resources:
- bundle.yaml
images:
- name: quay.io/prometheus-operator/prometheus-operator
  newName: ${image%@*}
  digest: ${image#*@}
# Without the kubelets' Service it keeps by default: the fake nodes'
# loopback addresses have no place in an Endpoints.
patches:
- target: {kind: Deployment, name: prometheus-operator}
  patch: |-
    - op: replace
      path: /spec/template/spec/containers/0/args
      value: [--prometheus-config-reloader=$reloader]
EOF
  "$KUSTOMIZE" build "$dir"
}

# prometheus writes the Prometheus, its ServiceAccount and what that may
# read. Its intervals are short, so that the end-to-end suite sees changes
# within seconds.
prometheus() {
  local image version
  image=$(recorded prometheus)
  version=$(sed -n 's|.*/prometheus:\(v[0-9.]*\)@.*|\1|p' <<<"$image")
  cat <<EOF
apiVersion: v1
kind: ServiceAccount
metadata:
  name: prometheus
  namespace: $namespace
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: prometheus
rules:
- apiGroups: [""]
  resources: [services, endpoints, pods]
  verbs: [get, list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [get, list, watch]
- nonResourceURLs: [/metrics]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: prometheus
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: prometheus
subjects:
- kind: ServiceAccount
  name: prometheus
  namespace: $namespace
---
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata:
  name: prometheus
  namespace: $namespace
spec:
  version: $version
  image: $image
  replicas: 1
  serviceAccountName: prometheus
  serviceMonitorSelector: {}
  serviceMonitorNamespaceSelector: {}
  ruleSelector: {}
  ruleNamespaceSelector: {}
  scrapeInterval: 5s
  evaluationInterval: 5s
  retention: 2h
  securityContext:
    runAsNonRoot: true
    runAsUser: 65534
    runAsGroup: 65534
    fsGroup: 65534
    seccompProfile: {type: RuntimeDefault}
  resources:
    requests: {cpu: 100m, memory: 200Mi}
    limits: {memory: 1Gi}
EOF
}

up() {
  kubectl create namespace "$namespace" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  $STEER "$namespace" >/dev/null
  # The CRDs' schemas are too large for a client-side apply's annotation.
  operator | kubectl apply --server-side --force-conflicts -f - >/dev/null
  kubectl wait --for=condition=Established --timeout=60s crd/prometheuses.monitoring.coreos.com >/dev/null
  prometheus | kubectl apply --server-side --force-conflicts -f - >/dev/null
  echo "monitoring: waiting for prometheus-operator and Prometheus"
  kubectl rollout status --namespace="$namespace" --timeout=180s deployment/prometheus-operator
  kubectl wait --namespace="$namespace" --for=condition=Available --timeout=180s prometheus/prometheus >/dev/null
  echo "monitoring: Prometheus $(kubectl get prometheus prometheus --namespace="$namespace" -o jsonpath='{.spec.version}') is up"
}

down() {
  if ! kubectl get crd prometheuses.monitoring.coreos.com >/dev/null 2>&1; then
    echo "monitoring: not installed"
    return
  fi
  # While prometheus-operator runs: the Prometheus goes first, so that it
  # removes the StatefulSet it made.
  prometheus | kubectl delete --ignore-not-found --wait=true -f - >/dev/null
  operator | kubectl delete --ignore-not-found --wait=true -f - >/dev/null
  echo "monitoring: removed"
}

case ${1:-} in
up) up ;;
down) down ;;
*) echo "usage: monitoring.sh up|down" >&2; exit 2 ;;
esac
