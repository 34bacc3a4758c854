#!/usr/bin/env bash
# make demo: installs the operator's CRDs and RBAC in the cluster KUBECONFIG
# names, runs the operator as a local process under its own ServiceAccount,
# applies config/samples in a namespace that enforces the restricted Pod
# Security Standard, waits until every sample is Ready and lists them. The
# operator then stays in the foreground until Ctrl-C, or stops at once with
# EXIT_WHEN_READY=true.
set -euo pipefail

cd "$(dirname "$0")/.."
: "${KUBECONFIG:?}" "${KUSTOMIZE:?}" "${MANAGER:?}"
DEMO_NAMESPACE=${DEMO_NAMESPACE:-seed-demo}
EXIT_WHEN_READY=${EXIT_WHEN_READY:-false}
READY_TIMEOUT=${READY_TIMEOUT:-180s}
dir=$PWD/bin/demo
export KUBECONFIG KUSTOMIZE MANAGER

echo "demo: cluster $(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')"
hack/operator.sh install

# The manager's logs go to the terminal, for people to read; its health and
# metrics endpoints listen on loopback only.
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
stop() {
  kill "$refresher" 2>/dev/null || true
  kill -TERM "$operator" 2>/dev/null || true
  wait "$operator" 2>/dev/null || true
}
trap stop EXIT
trap 'exit 130' INT TERM

kubectl create namespace "$DEMO_NAMESPACE" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
kubectl label namespace "$DEMO_NAMESPACE" --overwrite \
  pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/warn=restricted >/dev/null
"$KUSTOMIZE" build config/samples | kubectl apply --namespace="$DEMO_NAMESPACE" -f -

echo "demo: waiting up to $READY_TIMEOUT for every sample to be Ready"
kinds=$("$KUSTOMIZE" build config/crd | sed -n 's/^    plural: //p' | paste -sd, -)
if ! kubectl wait --for=condition=Ready --namespace="$DEMO_NAMESPACE" "$kinds" --all --timeout="$READY_TIMEOUT"; then
  kubectl get seed --namespace="$DEMO_NAMESPACE" -o wide >&2
  echo "demo: not every sample became Ready" >&2
  exit 1
fi
kubectl get seed -A

if [[ $EXIT_WHEN_READY == true ]]; then
  echo "demo: every sample is Ready; stopping the operator"
  exit 0
fi
echo "demo: every sample is Ready. The operator runs until Ctrl-C; in another terminal: export KUBECONFIG=$KUBECONFIG"
wait "$operator"
