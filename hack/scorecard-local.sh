#!/usr/bin/env bash
# make scorecard-local: every scorecard test on this machine. The operator
# runs as a local process under its ServiceAccount (hack/operator.sh), the
# project's own tests create their resources in a namespace that enforces
# the restricted Pod Security Standard, and hack/scorecard.sh prints pass or
# fail for each test.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${KUBECONFIG:?}"
export SCORECARD_NAMESPACE=${SCORECARD_NAMESPACE:-seed-scorecard}

hack/operator.sh install
hack/operator.sh run "$PWD/bin/scorecard" --health-probe-bind-address=127.0.0.1:18181 --metrics-bind-address=127.0.0.1:18182 \
  >"$PWD/bin/scorecard-operator.log" 2>&1 &
operator=$!
trap 'kill "$operator" 2>/dev/null; wait "$operator" 2>/dev/null || true' EXIT
kubectl create namespace "$SCORECARD_NAMESPACE" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
kubectl label namespace "$SCORECARD_NAMESPACE" --overwrite pod-security.kubernetes.io/enforce=restricted >/dev/null

hack/scorecard.sh
