#!/usr/bin/env bash
# A local Kubernetes cluster on loopback, for the demo and the end-to-end
# tests: etcd, kube-apiserver, kube-controller-manager and kube-scheduler,
# with kwok playing the kubelet of a few fake nodes. Containers never run;
# kwok moves pods through their life (Running and Ready at once, Job pods
# Completed) and provisions volumes for the default storage class, so
# Deployments roll out, Jobs complete, CronJobs fire and the garbage
# collector deletes what owners leave behind.
#
# usage: cluster.sh up|down|status
#
# The Makefile builds the binaries and names them in ETCD, KUBE_APISERVER,
# KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER, KWOK and KUSTOMIZE; KWOK_VERSION
# is the kwok module its stages are read from. Everything the cluster writes
# (certificates, etcd's data, logs, the admin kubeconfig) stays in
# CLUSTER_DIR, and only the logs outlive cluster-down; ~/.kube/config is
# never read or written.
set -euo pipefail

CLUSTER_DIR=${CLUSTER_DIR:-$PWD/bin/cluster}
CLUSTER_NODES=${CLUSTER_NODES:-2}
ETCD_PORT=${ETCD_PORT:-12379}
ETCD_PEER_PORT=${ETCD_PEER_PORT:-12380}
APISERVER_PORT=${APISERVER_PORT:-16443}
CONTROLLER_MANAGER_PORT=${CONTROLLER_MANAGER_PORT:-20257}
SCHEDULER_PORT=${SCHEDULER_PORT:-20259}
KWOK_PORT=${KWOK_PORT:-20247}

# The components in the order they start; they stop in reverse.
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

pki=$CLUSTER_DIR/pki
pids=$CLUSTER_DIR/pids
logs=$CLUSTER_DIR/logs
KUBECONFIG_FILE=$CLUSTER_DIR/kubeconfig

log() { printf 'cluster: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# binary COMPONENT is the path the Makefile gave for a component.
binary() {
  case $1 in
    etcd) echo "${ETCD:?}" ;;
    kube-apiserver) echo "${KUBE_APISERVER:?}" ;;
    kube-controller-manager) echo "${KUBE_CONTROLLER_MANAGER:?}" ;;
    kube-scheduler) echo "${KUBE_SCHEDULER:?}" ;;
    kwok) echo "${KWOK:?}" ;;
  esac
}

# running COMPONENT tells whether the process its pid file names is alive
# and is that component, not another process that took its pid since.
running() {
  local pid
  pid=$(cat "$pids/$1" 2>/dev/null) || return 1
  [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "/$1"
}

# in_use PORT tells whether something accepts connections on it.
in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

check_ports() {
  local busy=() name port
  for name in ETCD_PORT ETCD_PEER_PORT APISERVER_PORT CONTROLLER_MANAGER_PORT SCHEDULER_PORT KWOK_PORT; do
    port=${!name}
    if in_use "$port"; then
      busy+=("$port ($name)")
    fi
  done
  if ((${#busy[@]} > 0)); then
    die "ports in use by another process: ${busy[*]}. Stop that process, or choose other ports, e.g. make cluster-up APISERVER_PORT=26443."
  fi
}

# certificate NAME SUBJECT [EXTENSIONS] writes NAME.key and NAME.crt, signed
# by the cluster's CA.
certificate() {
  local name=$1 subject=$2 extensions=${3:-extendedKeyUsage=clientAuth}
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$pki/$name.key" -out "$pki/$name.csr" -subj "$subject" 2>/dev/null
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 365 -out "$pki/$name.crt" -extfile <(printf '%s\n' "$extensions") 2>/dev/null
  rm "$pki/$name.csr"
}

# kubeconfig NAME writes a kubeconfig that authenticates with NAME's client
# certificate.
kubeconfig() {
  local file=$CLUSTER_DIR/$1.kubeconfig
  [[ $1 == admin ]] && file=$KUBECONFIG_FILE
  kubectl config --kubeconfig="$file" set-cluster local --server="https://127.0.0.1:$APISERVER_PORT" \
    --certificate-authority="$pki/ca.crt" --embed-certs >/dev/null
  kubectl config --kubeconfig="$file" set-credentials "$1" \
    --client-certificate="$pki/$1.crt" --client-key="$pki/$1.key" --embed-certs >/dev/null
  kubectl config --kubeconfig="$file" set-context local --cluster=local --user="$1" >/dev/null
  kubectl config --kubeconfig="$file" use-context local >/dev/null
}

make_pki() {
  mkdir -p "$pki"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 365 \
    -keyout "$pki/ca.key" -out "$pki/ca.crt" -subj "/CN=seed-operator local cluster CA" 2>/dev/null
  certificate apiserver "/CN=kube-apiserver" "$(printf '%s\n' \
    'extendedKeyUsage=serverAuth' \
    'subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local')"
  # Each component as the user Kubernetes' default RBAC expects; kwok
  # stands in for the kubelets and the volume provisioner, so it is an admin.
  certificate admin "/O=system:masters/CN=local-admin"
  certificate kube-controller-manager "/CN=system:kube-controller-manager"
  certificate kube-scheduler "/CN=system:kube-scheduler"
  certificate kwok "/O=system:masters/CN=kwok"
  # The key pair that signs and verifies service account tokens.
  openssl ecparam -name prime256v1 -genkey -noout -out "$pki/sa.key" 2>/dev/null
  openssl ec -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
  local user
  for user in admin kube-controller-manager kube-scheduler kwok; do
    kubeconfig "$user"
  done
}

# kwok_stages writes the stages kwok plays, as the pinned kwok module ships
# them: fast node and pod lifecycles, node heartbeats on leases, and volume
# provisioning. It prints the module's directory.
kwok_stages() {
  local module
  module=$(go mod download -json "sigs.k8s.io/kwok@${KWOK_VERSION:?}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [[ -d $module ]] || die "cannot find the sigs.k8s.io/kwok@$KWOK_VERSION module"
  {
    "${KUSTOMIZE:?}" build "$module/kustomize/stage/fast"
    echo ---
    "$KUSTOMIZE" build "$module/kustomize/stage/volume/fast"
  } | only_kind Stage >"$CLUSTER_DIR/kwok-stages.yaml"
  echo "$module"
}

# only_kind KIND keeps the documents of a YAML stream that are of KIND.
only_kind() {
  awk -v kind="$1" '
    /^---$/ { if (keep) printf "%s---\n", doc; doc = ""; keep = 0; next }
    { doc = doc $0 "\n"; if ($0 == "kind: " kind) keep = 1 }
    END { if (keep) printf "%s", doc }'
}

# start COMPONENT ARGS... runs a component in its own session, so it
# outlives make, with its output in its log.
start() {
  local name=$1
  shift
  setsid "$(binary "$name")" "$@" >"$logs/$name.log" 2>&1 </dev/null &
  echo $! >"$pids/$name"
}

# wait_for WHAT SECONDS COMMAND... retries COMMAND until it succeeds.
wait_for() {
  local what=$1 seconds=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      die "$what did not happen within ${seconds}s; see the logs in $logs"
    fi
    local name
    for name in "${COMPONENTS[@]}"; do
      if [[ -f $pids/$name ]] && ! running "$name"; then
        tail -n 20 "$logs/$name.log" >&2
        die "$name exited; its log is $logs/$name.log"
      fi
    done
    sleep 0.5
  done
}

k() { kubectl --kubeconfig="$KUBECONFIG_FILE" "$@"; }

nodes() {
  local i
  for ((i = 0; i < CLUSTER_NODES; i++)); do
    cat <<EOF
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-$i
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    kubernetes.io/arch: amd64
    kubernetes.io/hostname: kwok-node-$i
    kubernetes.io/os: linux
    type: kwok
---
EOF
  done
}

up() {
  local alive=() name
  for name in "${COMPONENTS[@]}"; do
    if running "$name"; then alive+=("$name"); fi
  done
  if ((${#alive[@]} == ${#COMPONENTS[@]})) && k get --raw=/readyz >/dev/null 2>&1; then
    log "already running; KUBECONFIG=$KUBECONFIG_FILE"
    return
  fi
  if ((${#alive[@]} > 0)); then
    die "only partly running (${alive[*]}): run 'make cluster-down' first"
  fi

  check_ports
  rm -rf "$CLUSTER_DIR"
  mkdir -p "$pids" "$logs"
  log "starting in $CLUSTER_DIR"
  make_pki
  local module
  module=$(kwok_stages)

  start etcd --name=local --data-dir="$CLUSTER_DIR/etcd" \
    --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster="local=http://127.0.0.1:$ETCD_PEER_PORT" --unsafe-no-fsync
  # PodSecurity, ServiceAccount, DefaultStorageClass and garbage collection
  # are on by default. The endpoint reconciler is off because it refuses a
  # loopback advertise address.
  start kube-apiserver --bind-address=127.0.0.1 --secure-port="$APISERVER_PORT" \
    --advertise-address=127.0.0.1 --endpoint-reconciler-type=none \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
    --client-ca-file="$pki/ca.crt" --authorization-mode=Node,RBAC \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
    --service-cluster-ip-range=10.96.0.0/16
  wait_for "kube-apiserver ready" 90 k get --raw=/readyz

  start kube-controller-manager --kubeconfig="$CLUSTER_DIR/kube-controller-manager.kubeconfig" \
    --authentication-kubeconfig="$CLUSTER_DIR/kube-controller-manager.kubeconfig" \
    --authorization-kubeconfig="$CLUSTER_DIR/kube-controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$CONTROLLER_MANAGER_PORT" --leader-elect=false \
    --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
    --use-service-account-credentials=true \
    --kube-api-qps=200 --kube-api-burst=400 \
    --concurrent-deployment-syncs=20 --concurrent-replicaset-syncs=20 --concurrent-job-syncs=20 \
    --concurrent-gc-syncs=40
  cat >"$CLUSTER_DIR/kube-scheduler.yaml" <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: $CLUSTER_DIR/kube-scheduler.kubeconfig
  qps: 200
  burst: 400
leaderElection:
  leaderElect: false
EOF
  start kube-scheduler --config="$CLUSTER_DIR/kube-scheduler.yaml" \
    --authentication-kubeconfig="$CLUSTER_DIR/kube-scheduler.kubeconfig" \
    --authorization-kubeconfig="$CLUSTER_DIR/kube-scheduler.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$SCHEDULER_PORT"
  # kwok renews each node's Lease, as a kubelet does; without that, the node
  # lifecycle controller finds every node NotReady after its grace period
  # and marks their pods NotReady, which no stage undoes.
  start kwok --kubeconfig="$CLUSTER_DIR/kwok.kubeconfig" --config="$CLUSTER_DIR/kwok-stages.yaml" \
    --manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --node-lease-duration-seconds=40 \
    --cidr=10.244.0.0/16 --node-ip=127.0.0.1 --server-address="127.0.0.1:$KWOK_PORT"

  nodes | k apply -f - >/dev/null
  "$KUSTOMIZE" build "$module/kustomize/stage/volume/fast" | only_kind StorageClass | k apply -f - >/dev/null
  wait_for "nodes Ready" 60 k wait --for=condition=Ready node --all --timeout=1s
  # The controller manager's service account controller makes the default
  # service account of each namespace; pods cannot be created without it.
  wait_for "the default service account" 60 k get serviceaccount default --namespace=default
  log "ready: $CLUSTER_NODES kwok nodes; export KUBECONFIG=$KUBECONFIG_FILE"
}

# stop COMPONENT asks a component to stop, then kills it if it will not.
stop() {
  local name=$1 pid
  running "$name" || { rm -f "$pids/$name"; return 0; }
  pid=$(cat "$pids/$name")
  kill -TERM "$pid" 2>/dev/null || true
  local i
  for ((i = 0; i < 100; i++)); do
    running "$name" || break
    sleep 0.1
  done
  if running "$name"; then
    log "$name did not stop within 10s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pids/$name"
}

down() {
  local i
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
    stop "${COMPONENTS[i]}"
  done
  # The logs stay until the next cluster-up, to tell what went wrong.
  find "$CLUSTER_DIR" -mindepth 1 -maxdepth 1 ! -name logs -exec rm -rf {} + 2>/dev/null || true
  log "stopped; the components' logs stay in $logs until the next cluster-up"
}

status() {
  local name state=0
  for name in "${COMPONENTS[@]}"; do
    if running "$name"; then
      printf '%-24s running (pid %s)\n' "$name" "$(cat "$pids/$name")"
    else
      printf '%-24s stopped\n' "$name"
      state=1
    fi
  done
  return "$state"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  status) status ;;
  *) die "usage: $0 up|down|status" ;;
esac
