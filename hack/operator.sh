#!/usr/bin/env bash
# Runs the operator as a local process with the credentials it has when
# deployed: its own ServiceAccount's token, so that its RBAC is what
# decides what it may do, as in the cluster.
#
# usage:
#   operator.sh install          CRDs, namespace, ServiceAccount and RBAC (config/local)
#   operator.sh token DIR        a fresh token (TokenRequest) in DIR/token, and
#                                DIR/kubeconfig that reads it
#   operator.sh run DIR [FLAG...] token, then the manager, in place of this
#                                script, with leader election and FLAGs
#
# KUBECONFIG names the cluster (the admin credentials install and token
# use); KUSTOMIZE the kustomize binary; MANAGER the manager binary. SERVER,
# when set, is the API server's address (host:port) for the manager to
# dial in place of the cluster's: a proxy in between, for the chaos specs.
set -euo pipefail

NAMESPACE=seed-operator-system
SERVICE_ACCOUNT=seed-operator-controller-manager
# Tokens last this long; `token` again before then writes a new one, which
# the manager's client reads from the file without a restart.
TOKEN_DURATION=${TOKEN_DURATION:-2h}

cd "$(dirname "$0")/.."
: "${KUBECONFIG:?KUBECONFIG must name the cluster}"

install() {
  "${KUSTOMIZE:?}" build config/local | kubectl apply --server-side --force-conflicts -f - >/dev/null
  "$KUSTOMIZE" build config/crd | kubectl wait --for=condition=Established --timeout=60s -f - >/dev/null
  echo "operator: installed the CRDs, and the RBAC of ServiceAccount $NAMESPACE/$SERVICE_ACCOUNT"
}

token() {
  local dir=$1
  mkdir -p "$dir"
  # The token and the kubeconfig are the operator's credentials: its own.
  umask 077
  # Explicit, as run calls this where errexit does not apply.
  if ! kubectl create token "$SERVICE_ACCOUNT" --namespace="$NAMESPACE" --duration="$TOKEN_DURATION" >"$dir/token.new"; then
    rm -f "$dir/token.new"
    return 1
  fi
  mv "$dir/token.new" "$dir/token"
  # The cluster as the current context names it; the user is the service
  # account, whatever the kubeconfig authenticates with.
  local server ca
  server=$(kubectl config view --minify --flatten -o jsonpath='{.clusters[0].cluster.server}')
  if [ -n "${SERVER:-}" ]; then
    server=https://$SERVER
  fi
  ca=$(kubectl config view --minify --flatten -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
  cat >"$dir/kubeconfig.new" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: cluster
  cluster:
    server: $server
    certificate-authority-data: $ca
users:
- name: $SERVICE_ACCOUNT
  user:
    tokenFile: $(realpath "$dir/token")
contexts:
- name: operator
  context:
    cluster: cluster
    user: $SERVICE_ACCOUNT
current-context: operator
EOF
  mv "$dir/kubeconfig.new" "$dir/kubeconfig"
}

run() {
  local dir=$1
  shift
  # A manager started again while the API server is away (a kubelet
  # restarts a container without it) keeps the token it has.
  token "$dir" || [ -s "$dir/token" ]
  KUBECONFIG=$(realpath "$dir/kubeconfig") exec "${MANAGER:?}" \
    --leader-elect --leader-election-namespace="$NAMESPACE" "$@"
}

case ${1:-} in
  install) install ;;
  token) token "${2:?usage: $0 token DIR}" ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 install | token DIR | run DIR [FLAG...]" >&2; exit 1 ;;
esac
