#!/usr/bin/env bash
# make demo: installs the operator's CRDs and RBAC in the cluster KUBECONFIG
# names, runs the operator, applies config/samples in a namespace that
# enforces the restricted Pod Security Standard, waits until every sample is
# Ready and lists them.
#
# On the local cluster (IMAGES_RECORD and INFRA_IMAGES set by make), the
# samples run on its real node with the images built here, and the demo
# ends by showing the sample WebServer's page, fetched by a pod through its
# Service, and what the sample Echo printed. The operator runs as a local
# process under its own ServiceAccount, or, with DEPLOY=true, in the
# cluster from its image, as `make deploy` installs it; with MONITORING=true
# also with config/prometheus (its ServiceMonitor and alerting rules), which
# the Prometheus of `make monitoring-up` loads.
#
# The local operator then stays in the foreground until Ctrl-C, or stops at
# once with EXIT_WHEN_READY=true.
set -euo pipefail

cd "$(dirname "$0")/.."
: "${KUBECONFIG:?}" "${KUSTOMIZE:?}" "${MANAGER:?}"
DEMO_NAMESPACE=${DEMO_NAMESPACE:-seed-demo}
EXIT_WHEN_READY=${EXIT_WHEN_READY:-false}
DEPLOY=${DEPLOY:-false}
MONITORING=${MONITORING:-false}
READY_TIMEOUT=${READY_TIMEOUT:-180s}
IMAGES_RECORD=${IMAGES_RECORD:-}
INFRA_IMAGES=${INFRA_IMAGES:-}
dir=$PWD/bin/demo
# Kustomize overlays, inside the project so that they may name its folders.
overlays=$dir/overlays
operator=
refresher=
export KUBECONFIG KUSTOMIZE MANAGER

cleanup() {
  if [[ -n $operator ]]; then
    kill "$refresher" 2>/dev/null || true
    kill -TERM "$operator" 2>/dev/null || true
    wait "$operator" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck source=hack/record.sh
source hack/record.sh

echo "demo: cluster $(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')"
hack/operator.sh install

if [[ $DEPLOY == true ]]; then
  [[ -n $IMAGES_RECORD ]] || { echo "demo: DEPLOY=true needs the local cluster's images" >&2; exit 1; }
  operator_image=$(image operator "$IMAGES_RECORD")
  ${STEER:?} seed-operator-system
  # config/default with the manager's image, by digest, from the local
  # registry.
  rm -rf "$overlays/deploy" "$overlays/monitoring" && mkdir -p "$overlays/deploy"
  monitoring=
  if [[ $MONITORING == true ]]; then
    # config/prometheus, named and placed as config/default names and
    # places the operator.
    mkdir -p "$overlays/monitoring"
    cat >"$overlays/monitoring/kustomization.yaml" <<EOF
namespace: seed-operator-system
namePrefix: seed-operator-
resources:
- ../../../../config/prometheus
EOF
    monitoring="- ../monitoring"
  fi
  cat >"$overlays/deploy/kustomization.yaml" <<EOF
resources:
- ../../../../config/default
$monitoring
images:
- name: quay.io/seed-operators/seed-operator
  newName: ${operator_image%@*}
  digest: ${operator_image#*@}
EOF
  "$KUSTOMIZE" build "$overlays/deploy" | kubectl apply --server-side --force-conflicts -f - >/dev/null
  echo "demo: waiting for the operator's Deployment"
  kubectl rollout status deployment/seed-operator-controller-manager --namespace=seed-operator-system --timeout=180s
else
  # The manager's logs go to the terminal, for people to read; its health
  # and metrics endpoints listen on loopback only.
  hack/operator.sh run "$dir" --zap-encoder=console \
    --health-probe-bind-address=127.0.0.1:8081 --metrics-bind-address=127.0.0.1:8443 &
  operator=$!
  # refresh_token writes a new token every half hour, well before the last
  # one expires; the manager rereads the file.
  refresh_token() {
    local nap
    trap 'kill "$nap" 2>/dev/null; exit 0' TERM
    while :; do
      sleep 1800 &
      nap=$!
      wait "$nap"
      hack/operator.sh token "$dir"
    done
  }
  refresh_token &
  refresher=$!
fi

kubectl create namespace "$DEMO_NAMESPACE" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
kubectl label namespace "$DEMO_NAMESPACE" --overwrite \
  pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/warn=restricted >/dev/null
samples=config/samples
if [[ -n $IMAGES_RECORD ]]; then
  # On the real node, with the images built here: the samples' images are
  # upstream's, which cannot be pulled here.
  ${STEER:?} "$DEMO_NAMESPACE"
  nginx=$(image nginx-v1 "$IMAGES_RECORD")
  busybox=$(image busybox "$INFRA_IMAGES")
  samples=$overlays/samples
  rm -rf "$samples" && mkdir -p "$samples"
  cat >"$samples/kustomization.yaml" <<EOF
resources:
- ../../../../config/samples
patches:
- target: {kind: WebServer}
  patch: '[{"op": "replace", "path": "/spec/image", "value": "$nginx"}]'
- target: {kind: ImmortalContainer}
  patch: '[{"op": "replace", "path": "/spec/image", "value": "$busybox"}]'
- target: {kind: Echo}
  patch: '[{"op": "add", "path": "/spec/image", "value": "$busybox"}]'
- target: {kind: ScheduledEcho}
  patch: '[{"op": "add", "path": "/spec/image", "value": "$busybox"}]'
EOF
fi
"$KUSTOMIZE" build "$samples" | kubectl apply --namespace="$DEMO_NAMESPACE" -f -

echo "demo: waiting up to $READY_TIMEOUT for every sample to be Ready"
kinds=$("$KUSTOMIZE" build config/crd | sed -n 's/^    plural: //p' | paste -sd, -)
if ! kubectl wait --for=condition=Ready --namespace="$DEMO_NAMESPACE" "$kinds" --all --timeout="$READY_TIMEOUT"; then
  kubectl get seed --namespace="$DEMO_NAMESPACE" -o wide >&2
  echo "demo: not every sample became Ready" >&2
  exit 1
fi
kubectl get seed -A

if [[ -n $IMAGES_RECORD ]]; then
  echo "demo: the sample WebServer's page, fetched by a pod through its Service:"
  kubectl delete pod demo-fetch --namespace="$DEMO_NAMESPACE" --ignore-not-found >/dev/null
  kubectl apply --namespace="$DEMO_NAMESPACE" -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: demo-fetch
spec:
  restartPolicy: Never
  automountServiceAccountToken: false
  securityContext: {runAsNonRoot: true, runAsUser: 65534, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: fetch
    image: $busybox
    command: [fetch, "http://webserver-sample-service.$DEMO_NAMESPACE.svc/"]
    securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
EOF
  kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/demo-fetch --namespace="$DEMO_NAMESPACE" --timeout=60s >/dev/null
  kubectl logs demo-fetch --namespace="$DEMO_NAMESPACE" | head -5
  echo "demo: what the sample Echo printed:"
  kubectl logs job/echo-sample --namespace="$DEMO_NAMESPACE"
fi

if [[ $MONITORING == true ]]; then
  echo "demo: Prometheus scrapes the operator and evaluates its alerts; to query it:"
  echo "  kubectl port-forward --namespace=monitoring service/prometheus-operated 9090"
  echo "  then open http://127.0.0.1:9090/api/v1/query?query=seed_resource_ready"
fi
if [[ $EXIT_WHEN_READY == true || $DEPLOY == true ]]; then
  echo "demo: every sample is Ready"
  exit 0
fi
echo "demo: every sample is Ready. The operator runs until Ctrl-C; in another terminal: export KUBECONFIG=$KUBECONFIG"
wait "$operator"
