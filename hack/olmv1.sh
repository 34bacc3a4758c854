#!/usr/bin/env bash
# make olmv1-up / olmv1-down: installs OLM v1 (operator-controller and
# catalogd) in the cluster KUBECONFIG names, from the kustomize overlay its
# release is made of (config/ of the pinned module: the base, and the TLS
# components of the cert-manager overlay) and the images `make olmv1-images`
# pushed.
#
# There is no cert-manager here: the certificates its Certificates would
# have asked for are issued from the cluster's CA into the Secrets the TLS
# components mount, the webhook gets that CA as its caBundle, and the
# Certificates are left out. OLM v1 pulls catalog and bundle images itself
# (containers/image, not the node's containerd): a registries.conf, mounted
# as upstream's e2e component mounts its own, sends the project's images to
# the local registry's HTTPS twin, whose certificate the same CA signed.
#
# OLM v1's namespace is steered onto the real node.
#
#   olmv1.sh up | down
set -euo pipefail

cd "$(dirname "$0")/.."
: "${KUBECONFIG:?}" "${KUSTOMIZE:?}" "${OLMV1_MODULE_DIR:?}" "${OLMV1_IMAGES_RECORD:?}" "${CLUSTER:?}" "${CLUSTER_CA:?}"
export KUBECONFIG
namespace=olmv1-system
# The images the catalog names, which OLM v1 pulls from the local registry.
repository=quay.io/seed-operators

# shellcheck source=hack/record.sh
source hack/record.sh

# render writes OLM v1's manifests: upstream's overlay, with this cluster's
# CA, registries.conf and images.
render() {
  local dir ca
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' RETURN
  cp -R "$OLMV1_MODULE_DIR/config" "$dir/upstream" && chmod -R u+w "$dir/upstream"
  ca=$(base64 -w0 <"$CLUSTER_CA")
  local controller catalogd
  controller=$(quay_image operator-controller "$OLMV1_IMAGES_RECORD" olmv1-images)
  catalogd=$(quay_image catalogd "$OLMV1_IMAGES_RECORD" olmv1-images)
  cat >"$dir/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- upstream/base/catalogd
- upstream/base/operator-controller
- upstream/base/common
components:
- upstream/components/tls/catalogd
- upstream/components/tls/operator-controller
- upstream/components/registries-conf
images:
- name: quay.io/operator-framework/operator-controller
  newName: ${controller%@*}
  digest: ${controller#*@}
- name: quay.io/operator-framework/catalogd
  newName: ${catalogd%@*}
  digest: ${catalogd#*@}
patches:
# cert-manager's objects: the Secrets they stand for are made by up().
- target: {kind: Certificate}
  patch: |-
    \$patch: delete
    apiVersion: cert-manager.io/v1
    kind: Certificate
    metadata: {name: any}
- target: {kind: MutatingWebhookConfiguration}
  patch: |-
    - op: remove
      path: /metadata/annotations/cert-manager.io~1inject-ca-from-secret
    - op: add
      path: /webhooks/0/clientConfig/caBundle
      value: $ca
- target: {kind: ConfigMap, name: e2e-registries-conf}
  patch: |-
    - op: replace
      path: /data/registries.conf
      value: |
        [[registry]]
        prefix = "$repository"
        location = "$($CLUSTER registry-tls)/${repository#*/}"
# catalogd pulls the catalog image: it reads the same registries.conf.
- target: {kind: Deployment, labelSelector: control-plane=catalogd-controller-manager}
  patch: |-
    - op: add
      path: /spec/template/spec/volumes/-
      value: {name: e2e-registries-conf, configMap: {name: e2e-registries-conf}}
    - op: add
      path: /spec/template/spec/containers/0/volumeMounts/-
      value: {name: e2e-registries-conf, mountPath: /etc/containers}
EOF
  "$KUSTOMIZE" build "$dir"
}

# secret NAME CERTIFICATE-NAME DNS... makes the Secret a cert-manager
# Certificate would have: tls.crt, tls.key and ca.crt, from a serving
# certificate the cluster's CA issues (`cluster certificate` prints the
# files of the certificate, the key and the CA).
secret() {
  local name=$1 files
  shift
  mapfile -t files < <($CLUSTER certificate "$@")
  kubectl create secret tls "$name" --namespace="$namespace" --cert="${files[0]}" --key="${files[1]}" \
    --dry-run=client -o yaml |
    kubectl patch --local -f - --type=merge -o yaml \
      -p "{\"data\":{\"ca.crt\":\"$(base64 -w0 <"${files[2]}")\"}}" |
    kubectl apply --server-side --force-conflicts -f - >/dev/null
}

up() {
  kubectl create namespace "$namespace" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  $CLUSTER steer "$namespace" >/dev/null
  secret catalogd-service-cert-git-version olmv1-catalogd \
    localhost "catalogd-service.$namespace.svc" "catalogd-service.$namespace.svc.cluster.local"
  secret olmv1-cert olmv1-operator-controller \
    "operator-controller-service.$namespace.svc" "operator-controller-service.$namespace.svc.cluster.local"
  render | kubectl apply --server-side --force-conflicts -f - >/dev/null
  echo "olmv1: waiting for catalogd and operator-controller"
  kubectl rollout status --namespace="$namespace" --timeout=180s \
    deployment/catalogd-controller-manager deployment/operator-controller-controller-manager
  echo "olmv1: $(kubectl get deployment operator-controller-controller-manager --namespace="$namespace" \
    -o jsonpath='{.spec.template.spec.containers[0].image}') is up"
}

down() {
  if ! kubectl get crd clusterextensions.olm.operatorframework.io >/dev/null 2>&1; then
    echo "olmv1: not installed"
    return
  fi
  # While OLM v1 runs: what it installed goes first, so it can let go.
  kubectl delete clusterextensions.olm.operatorframework.io,clustercatalogs.olm.operatorframework.io \
    --all --ignore-not-found --wait=true >/dev/null
  render | kubectl delete --ignore-not-found --wait=true -f - >/dev/null
  echo "olmv1: removed"
}

case ${1:-} in
up) up ;;
down) down ;;
*) echo "usage: olmv1.sh up|down" >&2; exit 2 ;;
esac
