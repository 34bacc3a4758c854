# The local cluster: its start and stop, the Debian packages its real node
# needs on the host, and the Kubernetes distribution it runs, built from
# source (kube-apiserver and the other components, etcd, kwok, containerd,
# the CNI plugins, the registry, CoreDNS, the volume provisioner).

##@ Local cluster

# What hack/cluster runs (test/cluster); the ports, the number of kwok
# nodes (CLUSTER_NODES) and of real nodes (CLUSTER_REAL_NODES, 1 or 0) can
# be set the same way (APISERVER_PORT=..., see docs/local-cluster.md).
CLUSTER_REAL_NODES ?= 1
CLUSTER_BINARIES = $(ETCD) $(KUBE_APISERVER) $(KUBE) $(KWOK) $(KUSTOMIZE) $(REGISTRY)
ifneq ($(CLUSTER_REAL_NODES),0)
CLUSTER_BINARIES += $(CONTAINERD) $(CONTAINERD_SHIM) $(CNI_DIR) $(IMAGES) infra-inputs host-packages
endif
CLUSTER_ENV = ETCD=$(ETCD) KUBE_APISERVER=$(KUBE_APISERVER) KUBE=$(KUBE) KWOK=$(KWOK) KWOK_VERSION=$(KWOK_VERSION) KUSTOMIZE=$(KUSTOMIZE) \
	REGISTRY=$(REGISTRY) CONTAINERD=$(CONTAINERD) CONTAINERD_SHIM=$(CONTAINERD_SHIM) CNI_DIR=$(CNI_DIR) \
	IMAGES=$(IMAGES) CLUSTER_REAL_NODES=$(CLUSTER_REAL_NODES) $(IMAGES_ENV)
CLUSTER_KUBECONFIG = $(LOCALBIN)/cluster/kubeconfig
CLUSTER_CA = $(LOCALBIN)/cluster/pki/ca.crt
# The scripts run it as a command (STEER, CLUSTER), where no environment
# assignment may lead: the machine's Go runs this helper of the cluster.
CLUSTER = go run ./hack/cluster

.PHONY: cluster-programs
cluster-programs: $(CLUSTER_BINARIES) ## Build what the local cluster runs, without starting it.

.PHONY: cluster-up
cluster-up: $(CLUSTER_BINARIES) ## Start the local cluster: control plane, kwok nodes and a real node; a no-op when it runs.
	$(CLUSTER_ENV) $(CLUSTER) up

.PHONY: cluster-down
cluster-down: ## Stop the local cluster, put the host back as it was, and delete the cluster's state (logs and images stay).
	$(CLUSTER_ENV) $(CLUSTER) down

.PHONY: cluster-status
cluster-status: ## Tell which processes of the local cluster run, and what the real node reports.
	$(CLUSTER_ENV) $(CLUSTER) status

.PHONY: host-packages
host-packages: ## Install the Debian packages the real node runs on the host: runc, nftables, conntrack.
	hack/debian.sh install runc nftables conntrack

# The cluster's programs, built from source (their versions and paths are
# in make/tools.mk).

# The version stamped into the control plane binaries, so clients (and OLM's
# minKubeVersion check) see a real version rather than v0.0.0-master.
kube-version-ldflags = -X $(1).gitVersion=$(KUBERNETES_VERSION) \
	-X $(1).gitMajor=$(word 1,$(subst ., ,$(KUBERNETES_VERSION:v%=%))) \
	-X $(1).gitMinor=$(word 2,$(subst ., ,$(KUBERNETES_VERSION:v%=%))) -X $(1).gitTreeState=clean
KUBE_LDFLAGS = -s -w $(call kube-version-ldflags,k8s.io/component-base/version) \
	$(call kube-version-ldflags,k8s.io/client-go/pkg/version)
# The programs of hack/tools/cluster. Built the way Kubernetes builds its
# release binaries, static, with its tags (GO_TAGS), as every program here
# is: the libraries they have in common are compiled once.
CLUSTER_BUILD = cd hack/tools/cluster && $(BUILD_COST) go build
CLUSTER_SOURCES = hack/tools/cluster/go.mod hack/tools/cluster/go.sum

.PHONY: kube
kube: $(KUBE_APISERVER) $(KUBE) ## Build the Kubernetes components the local cluster runs: the API server, and the others as one program.
$(KUBE_APISERVER): $(CLUSTER_SOURCES) hack/tools/cluster/kube-apiserver/main.go | $(LOCALBIN)
	$(CLUSTER_BUILD) -ldflags "$(KUBE_LDFLAGS)" -o $@ ./kube-apiserver
$(KUBE): $(CLUSTER_SOURCES) hack/tools/cluster/kube/main.go | $(LOCALBIN)
	$(CLUSTER_BUILD) -ldflags "$(KUBE_LDFLAGS)" -o $@ ./kube

$(ETCD): $(CLUSTER_SOURCES) | $(LOCALBIN)
	$(CLUSTER_BUILD) -ldflags "-s -w" -o $@ go.etcd.io/etcd/server/v3

.PHONY: containerd
containerd: $(CONTAINERD) $(CONTAINERD_SHIM) ## Build containerd and its runc shim.
$(CONTAINERD): | $(LOCALBIN)
	$(call go-install-tool,$@,$(CONTAINERD_PACKAGE),$(CONTAINERD_FLAGS),no_btrfs$(comma)no_devmapper$(comma)no_zfs$(comma)urfave_cli_no_docs)
$(CONTAINERD_SHIM): | $(LOCALBIN)
	$(call go-install-tool,$@,$(CONTAINERD_SHIM_PACKAGE),$(CONTAINERD_FLAGS),no_grpc$(comma)urfave_cli_no_docs)
CONTAINERD_FLAGS = -X github.com/containerd/containerd/v2/version.Version=$(CONTAINERD_VERSION)
comma := ,

.PHONY: cni-plugins
cni-plugins: $(CNI_DIR) ## Build the CNI plugins the real node uses: bridge, host-local and loopback.
$(CNI_DIR): | $(LOCALBIN)
	mkdir -p $@.tmp && GOBIN=$@.tmp $(BUILD_COST) $(GO_INSTALL) \
		-ldflags "-s -w -X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=$(CNI_PLUGINS_VERSION)" \
		$(CNI_PLUGINS_PACKAGES)
	rm -rf $@ && mv $@.tmp $@

.PHONY: registry
registry: $(REGISTRY) ## Build the local cluster's image registry (distribution).
$(REGISTRY): $(CLUSTER_SOURCES) hack/tools/cluster/registry/main.go | $(LOCALBIN)
	$(CLUSTER_BUILD) -ldflags "-s -w -X github.com/distribution/distribution/v3/version.version=$(DISTRIBUTION_VERSION)" -o $@ ./registry

$(COREDNS): $(CLUSTER_SOURCES) hack/tools/cluster/coredns/main.go | $(LOCALBIN)
	$(CLUSTER_BUILD) -ldflags "-s -w" -o $@ ./coredns

$(LOCAL_PATH_PROVISIONER): $(CLUSTER_SOURCES) | $(LOCALBIN)
	$(CLUSTER_BUILD) -ldflags "-s -w" -o $@ github.com/rancher/local-path-provisioner

# metrics-server, the resource metrics API that HorizontalPodAutoscalers and
# kubectl top read, stamped with its version as upstream's release is.
$(METRICS_SERVER): $(CLUSTER_SOURCES) | $(LOCALBIN)
	$(CLUSTER_BUILD) -ldflags "-s -w -X k8s.io/client-go/pkg/version.gitVersion=$(METRICS_SERVER_VERSION)" \
		-o $@ sigs.k8s.io/metrics-server/cmd/metrics-server

# The CSI driver (hack/tools/cluster/csi-tmpfs), upstream's sidecars that
# drive it, the snapshot controller, and the snapshot CRDs, in one folder.
CSI_PACKAGES = ./csi-tmpfs github.com/kubernetes-csi/external-provisioner/v6/cmd/csi-provisioner \
	github.com/kubernetes-csi/external-resizer/v2/cmd/csi-resizer \
	github.com/kubernetes-csi/external-snapshotter/v8/cmd/csi-snapshotter \
	github.com/kubernetes-csi/external-snapshotter/v8/cmd/snapshot-controller
.PHONY: csi
csi: $(CSI_DIR) ## Build the local cluster's CSI driver and its sidecars.
$(CSI_DIR): $(CLUSTER_SOURCES) $(wildcard hack/tools/cluster/csi-tmpfs/*.go) | $(LOCALBIN)
	rm -rf $@.tmp && mkdir -p $@.tmp/crds
	$(CLUSTER_BUILD) -ldflags "-s -w" -o $@.tmp/ $(CSI_PACKAGES)
	cp $(SNAPSHOT_CRDS)/snapshot.storage.k8s.io_*.yaml $@.tmp/crds/
	chmod u+w $@.tmp/crds/*
	rm -rf $@ && mv $@.tmp $@

# Prometheus with one service discovery, Kubernetes', which ServiceMonitors
# need: the others' cloud SDKs would take minutes to compile.
.PHONY: prometheus
prometheus: $(PROMETHEUS) ## Build Prometheus, which make monitoring-up runs.
$(PROMETHEUS): $(CLUSTER_SOURCES) | $(LOCALBIN)
	$(CLUSTER_BUILD) -tags=$(GO_TAGS),remove_all_sd,enable_kubernetes_sd -ldflags "-s -w -X github.com/prometheus/common/version.Version=$(PROMETHEUS_VERSION:v%=%)" \
		-o $@ github.com/prometheus/prometheus/cmd/prometheus

.PHONY: kwok
kwok: $(KWOK) ## Build kwok.
$(KWOK): $(CLUSTER_SOURCES) | $(LOCALBIN)
	$(CLUSTER_BUILD) -ldflags "-s -w" -o $@ sigs.k8s.io/kwok/cmd/kwok
