# The tools the Makefile builds from source into ./bin (controller-gen,
# kustomize, helm, golangci-lint, envtest, operator-sdk, scorecard-test, opm,
# the catalog renderer and OperatorHub writer, vulncheck, grpc_health_probe),
# prefetch, and the pinned version and ./bin path of every program built
# here, the local cluster's and OLM's included: the other parts use them.

# Tools, pinned. Each is built from source through the Go module proxy into
# ./bin under a name that carries its version, so a second run reuses it and
# a version bump rebuilds it. Those built from modules of hack/ take their
# version from the module's go.mod: $(call module-version,GO.MOD,MODULE).
module-version = $(shell awk '!/^[[:space:]]*\/\// { for (i = 1; i < NF; i++) if ($$i == "$(2)") { print $$(i + 1); exit } }' $(1))
GOLANGCI_LINT_VERSION ?= v2.15.0
# The local cluster's programs that hack/tools/cluster pins, in one module:
# Kubernetes (the API server, which envtest runs too, and the other
# components in one program), CoreDNS and the registry with slim mains,
# kwok (the kubelets of the fake nodes), the local-path-provisioner,
# metrics-server, the CSI sidecars beside the project's own driver, etcd
# (envtest's too) and kustomize, whose libraries kubectl compiles too.
CLUSTER_MODULE = hack/tools/cluster/go.mod
KUBERNETES_VERSION := $(call module-version,$(CLUSTER_MODULE),k8s.io/kubernetes)
DISTRIBUTION_VERSION := $(call module-version,$(CLUSTER_MODULE),github.com/distribution/distribution/v3)
COREDNS_VERSION := $(call module-version,$(CLUSTER_MODULE),github.com/coredns/coredns)
KWOK_VERSION := $(call module-version,$(CLUSTER_MODULE),sigs.k8s.io/kwok)
LOCAL_PATH_PROVISIONER_VERSION := $(call module-version,$(CLUSTER_MODULE),github.com/rancher/local-path-provisioner)
METRICS_SERVER_VERSION := $(call module-version,$(CLUSTER_MODULE),sigs.k8s.io/metrics-server)
CSI_PROVISIONER_VERSION := $(call module-version,$(CLUSTER_MODULE),github.com/kubernetes-csi/external-provisioner/v6)
CSI_RESIZER_VERSION := $(call module-version,$(CLUSTER_MODULE),github.com/kubernetes-csi/external-resizer/v2)
CSI_SNAPSHOTTER_VERSION := $(call module-version,$(CLUSTER_MODULE),github.com/kubernetes-csi/external-snapshotter/v8)
# The VolumeSnapshot CRDs, which DemoVolumes' backups need: from the
# snapshotter's client module, which the operator imports.
SNAPSHOT_CLIENT = github.com/kubernetes-csi/external-snapshotter/client/v8
SNAPSHOT_CRDS = $(shell $(GO) mod download $(SNAPSHOT_CLIENT) && $(GO) list -m -f '{{.Dir}}' $(SNAPSHOT_CLIENT))/config/crd
CSI_VERSION := provisioner-$(CSI_PROVISIONER_VERSION)-resizer-$(CSI_RESIZER_VERSION)-snapshotter-$(CSI_SNAPSHOTTER_VERSION)
# Prometheus' module versions v0.MAJORMINOR.PATCH stand for its release
# vMAJOR.MINOR.PATCH.
PROMETHEUS_MODULE_VERSION := $(call module-version,$(CLUSTER_MODULE),github.com/prometheus/prometheus)
PROMETHEUS_VERSION := $(shell echo $(PROMETHEUS_MODULE_VERSION) | awk -F. '{ printf "v%s.%d.%s", substr($$2, 1, 1), substr($$2, 2), $$3 }')
ETCD_VERSION := $(call module-version,$(CLUSTER_MODULE),go.etcd.io/etcd/server/v3)
KUSTOMIZE_VERSION := $(call module-version,$(CLUSTER_MODULE),sigs.k8s.io/kustomize/kustomize/v5)
# operator-sdk (and its scorecard-test program), controller-gen and helm, from
# one module; operator-registry (opm, and hack/catalog's renderer).
SDK_MODULE = hack/tools/operator-sdk/go.mod
OPERATOR_SDK_VERSION := $(call module-version,$(SDK_MODULE),github.com/operator-framework/operator-sdk)
CONTROLLER_TOOLS_VERSION := $(call module-version,$(SDK_MODULE),sigs.k8s.io/controller-tools)
HELM_VERSION := $(call module-version,$(SDK_MODULE),helm.sh/helm/v4)
OPM_VERSION := $(call module-version,hack/catalog/go.mod,github.com/operator-framework/operator-registry)
# The real node of the local cluster: containerd and the CNI plugins on the
# host. runc and nftables come from Debian (hack/debian.sh).
CONTAINERD_VERSION ?= v2.4.2
CNI_PLUGINS_VERSION ?= v1.9.1
# promtool, for the alerting rules: Debian's package, whose version serves
# (rule files and their unit tests are the same format). Its Prometheus
# does not: Debian builds it without Kubernetes service discovery, which
# ServiceMonitors need, so make monitoring-up runs one built here.
PROMETHEUS_DEB_VERSION ?= 2.42.0+ds-5+deb12u1
# prometheus-operator and its config reloader, built from hack/tools/monitoring.
PROMETHEUS_OPERATOR_VERSION := $(call module-version,hack/tools/monitoring/go.mod,github.com/prometheus-operator/prometheus-operator)
# OLM v0 and the catalog image's health probe, built from hack/tools/olm.
OLM_VERSION := $(call module-version,hack/tools/olm/go.mod,github.com/operator-framework/operator-lifecycle-manager)
GRPC_HEALTH_PROBE_VERSION := $(call module-version,hack/tools/olm/go.mod,github.com/grpc-ecosystem/grpc-health-probe)
# OLM v1 (operator-controller and catalogd), built from hack/tools/olmv1.
OLMV1_VERSION := $(call module-version,hack/tools/olmv1/go.mod,github.com/operator-framework/operator-controller)
# govulncheck (golang.org/x/vuln), built into vulncheck from hack/tools/vuln,
# and the database it reads: golang.org/x/vulndb's OSV reports at a commit,
# which the module proxy serves.
VULN_VERSION := $(call module-version,hack/tools/vuln/go.mod,golang.org/x/vuln)
VULNDB_VERSION ?= v0.0.0-20261105234957-e22db6528018

LOCALBIN ?= $(shell pwd)/bin
# bin/ is a module of its own, so that ./... in the operator's module never
# walks into it: the local cluster's state there (containerd's pod folders)
# comes and goes while go lists packages.
BIN_MODULE = $(LOCALBIN)/go.mod
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
KUSTOMIZE ?= $(LOCALBIN)/kustomize-$(KUSTOMIZE_VERSION)
HELM ?= $(LOCALBIN)/helm-$(HELM_VERSION)
PROMTOOL ?= $(LOCALBIN)/promtool-$(PROMETHEUS_DEB_VERSION)
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)-$(GO_TOOLCHAIN)
ETCD ?= $(LOCALBIN)/etcd-$(ETCD_VERSION)
KUBE_APISERVER ?= $(LOCALBIN)/kube-apiserver-$(KUBERNETES_VERSION)
KUBE ?= $(LOCALBIN)/kube-$(KUBERNETES_VERSION)
KWOK ?= $(LOCALBIN)/kwok-$(KWOK_VERSION)
CONTAINERD ?= $(LOCALBIN)/containerd-$(CONTAINERD_VERSION)
CONTAINERD_SHIM ?= $(LOCALBIN)/containerd-shim-runc-v2-$(CONTAINERD_VERSION)
CNI_DIR ?= $(LOCALBIN)/cni-$(CNI_PLUGINS_VERSION)
REGISTRY ?= $(LOCALBIN)/registry-$(DISTRIBUTION_VERSION)
COREDNS ?= $(LOCALBIN)/coredns-$(COREDNS_VERSION)
LOCAL_PATH_PROVISIONER ?= $(LOCALBIN)/local-path-provisioner-$(LOCAL_PATH_PROVISIONER_VERSION)
METRICS_SERVER ?= $(LOCALBIN)/metrics-server-$(METRICS_SERVER_VERSION)
CSI_DIR ?= $(LOCALBIN)/csi-$(CSI_VERSION)
PROMETHEUS ?= $(LOCALBIN)/prometheus-$(PROMETHEUS_VERSION)
OLM_DIR ?= $(LOCALBIN)/olm-$(OLM_VERSION)
GRPC_HEALTH_PROBE ?= $(LOCALBIN)/grpc_health_probe-$(GRPC_HEALTH_PROBE_VERSION)
OLMV1_DIR ?= $(LOCALBIN)/olmv1-$(OLMV1_VERSION)
MONITORING_DIR ?= $(LOCALBIN)/prometheus-operator-$(PROMETHEUS_OPERATOR_VERSION)
VULNCHECK ?= $(LOCALBIN)/vulncheck-$(VULN_VERSION)-$(GO_TOOLCHAIN)
IMAGES ?= $(LOCALBIN)/images
OPERATOR_SDK ?= $(LOCALBIN)/operator-sdk-$(OPERATOR_SDK_VERSION)
SCORECARD_TEST ?= $(LOCALBIN)/scorecard-test-$(OPERATOR_SDK_VERSION)
OPM ?= $(LOCALBIN)/opm-$(OPM_VERSION)
RENDER_CATALOG ?= $(LOCALBIN)/render-catalog-$(OPM_VERSION)
OPERATORHUB ?= $(LOCALBIN)/operatorhub-$(OPM_VERSION)
GINKGO_VERSION := $(call module-version,go.mod,github.com/onsi/ginkgo/v2)
GINKGO ?= $(LOCALBIN)/ginkgo-$(GINKGO_VERSION)
ENVTEST_DIR ?= $(LOCALBIN)/envtest/$(KUBERNETES_VERSION)-etcd-$(ETCD_VERSION)
KUBECTL ?= kubectl

# envtest uses the control plane built here, unless KUBEBUILDER_ASSETS names
# another one.
ifeq ($(origin KUBEBUILDER_ASSETS),undefined)
KUBEBUILDER_ASSETS := $(ENVTEST_DIR)
ENVTEST_PREREQ := envtest
endif

# Every program's build, and each step of make test, is timed into
# BUILD_COSTS (hack/build-cost.sh): make build-costs shows where a cold
# run's minutes went. The compiler collects its garbage less often than
# Go's default, for a tenth less CPU at a quarter more memory
# (docs/testing.md); the programs it builds, the suites included, run with
# the default.
export BUILD_COSTS ?= $(LOCALBIN)/build-costs.log
BUILD_GOGC ?= 400
TIMED = $(CURDIR)/hack/build-cost.sh record
BUILD_COST_OF = GOGC=$(BUILD_GOGC) $(TIMED)
BUILD_COST = $(BUILD_COST_OF) $@
# go install, from the module cache when it has what the build needs.
GO_INSTALL = $(CURDIR)/hack/go-install.sh

##@ Tools

# Every program built here: the suites', the checks', the local cluster's,
# OLM's, the kubectl plugin and the released managers.
PROGRAMS = $(CONTROLLER_GEN) $(GINKGO) $(KUSTOMIZE) $(HELM) $(GOLANGCI_LINT) $(VULNCHECK) $(OPERATOR_SDK) $(SCORECARD_TEST) \
	$(OPM) $(RENDER_CATALOG) $(OPERATORHUB) $(GRPC_HEALTH_PROBE) $(ETCD) $(KUBE_APISERVER) $(KUBE) $(KWOK) \
	$(CONTAINERD) $(CONTAINERD_SHIM) $(CNI_DIR) $(REGISTRY) $(COREDNS) $(LOCAL_PATH_PROVISIONER) $(METRICS_SERVER) \
	$(CSI_DIR) $(PROMETHEUS) $(MONITORING_DIR) $(OLM_DIR) $(OLMV1_DIR) $(IMAGES) $(LOCALBIN)/pause $(LOCALBIN)/fetch \
	manager plugin seed-scorecard released-managers

.PHONY: programs
programs: $(PROGRAMS) ## Build every program the Makefile builds, without running any.

.PHONY: build-costs
build-costs: ## Show the wall and CPU time of each program built into ./bin so far (BUILD_COSTS), and what it was built with.
	@hack/build-cost.sh table

$(LOCALBIN):
	mkdir -p $(LOCALBIN)

# The tools built as package@version, and the modules of the operator and of
# every other tool built here: prefetch downloads all they need.
GOLANGCI_LINT_PACKAGE = github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
CONTAINERD_PACKAGE = github.com/containerd/containerd/v2/cmd/containerd@$(CONTAINERD_VERSION)
CONTAINERD_SHIM_PACKAGE = github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@$(CONTAINERD_VERSION)
CNI_PLUGINS_PACKAGES = $(foreach p,main/bridge ipam/host-local main/loopback,github.com/containernetworking/plugins/plugins/$(p)@$(CNI_PLUGINS_VERSION))
GO_INSTALL_PACKAGES = $(GOLANGCI_LINT_PACKAGE) \
	$(CONTAINERD_PACKAGE) $(CONTAINERD_SHIM_PACKAGE) $(CNI_PLUGINS_PACKAGES)
GO_MODULE_DIRS = . hack/catalog hack/images $(patsubst %/go.mod,%,$(wildcard hack/tools/*/go.mod))

# What make demo builds, of the above.
DEMO_MODULE_DIRS = . hack/images hack/tools/cluster
DEMO_INSTALL_PACKAGES = $(CONTAINERD_PACKAGE) $(CONTAINERD_SHIM_PACKAGE) \
	$(CNI_PLUGINS_PACKAGES)

# prefetch-modules downloads the modules of the module folders $(1) and of
# the packages $(2), which go install builds.
define prefetch-modules
for dir in $(1); do (cd $$dir && go mod download) || exit 1; done
for package in $(2); do $(GO_INSTALL) -n $$package 2>/dev/null || exit 1; done
endef

.PHONY: prefetch
prefetch: ## Download the Go modules of every build here: on a cold machine, in the background, downloads then overlap compiling.
	@$(call prefetch-modules,$(GO_MODULE_DIRS),$(GO_INSTALL_PACKAGES))
	@go mod download golang.org/x/vulndb@$(VULNDB_VERSION)

.PHONY: demo-prefetch
demo-prefetch: ## Download the Go modules of what make demo builds (it does, in the background).
	@$(call prefetch-modules,$(DEMO_MODULE_DIRS),$(DEMO_INSTALL_PACKAGES))

$(BIN_MODULE): | $(LOCALBIN)
	printf 'module seed-operator.local/bin\n' >$@

# ginkgo runs the end-to-end suite in parallel processes. It comes from the
# operator's own module, at the version its tests import.
.PHONY: ginkgo
ginkgo: $(GINKGO) ## Build the ginkgo CLI.
$(GINKGO): go.mod | $(LOCALBIN)
	$(BUILD_COST) go build -ldflags "-s -w" -o $@ github.com/onsi/ginkgo/v2/ginkgo

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Build controller-gen.
$(CONTROLLER_GEN): $(SDK_MODULE) | $(LOCALBIN)
	cd hack/tools/operator-sdk && $(BUILD_COST) go build -ldflags "-s -w" -o $@ sigs.k8s.io/controller-tools/cmd/controller-gen

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Build kustomize.
$(KUSTOMIZE): $(CLUSTER_MODULE) | $(LOCALBIN)
	$(CLUSTER_BUILD) -ldflags "-s -w" -o $@ sigs.k8s.io/kustomize/kustomize/v5

.PHONY: helm
helm: $(HELM) ## Build helm, stamped with its version as its release is.
$(HELM): $(SDK_MODULE) | $(LOCALBIN)
	cd hack/tools/operator-sdk && $(BUILD_COST) go build -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$(HELM_VERSION)" \
		-o $@ helm.sh/helm/v4/cmd/helm

.PHONY: promtool
promtool: $(PROMTOOL) ## Unpack promtool from Debian's prometheus package.
$(PROMTOOL): | $(LOCALBIN)
	rm -rf $@.deb && hack/debian.sh download $@.deb prometheus=$(PROMETHEUS_DEB_VERSION)
	dpkg-deb -x $@.deb/prometheus_*.deb $@.deb/root
	mv $@.deb/root/usr/bin/promtool $@
	rm -rf $@.deb

.PHONY: vulncheck
vulncheck: $(VULNCHECK) ## Fail on a known vulnerability the operator's code reaches, the standard library's of GO_TOOLCHAIN included (govulncheck, with the database of VULNDB_VERSION).
	go mod download golang.org/x/vulndb@$(VULNDB_VERSION)
	$(VULNCHECK) -db $$(go env GOMODCACHE)/golang.org/x/vulndb@$(VULNDB_VERSION)/data/osv ./...
# Built by the Go it checks with: it type-checks that Go's standard library.
$(VULNCHECK): hack/tools/vuln/go.mod hack/tools/vuln/main.go | $(LOCALBIN)
	cd hack/tools/vuln && $(BUILD_COST) $(GO) build -o $@ .

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Build golangci-lint.
$(GOLANGCI_LINT): | $(LOCALBIN)
	$(call go-install-tool,$@,$(GOLANGCI_LINT_PACKAGE))

.PHONY: envtest
envtest: $(ENVTEST_DIR)/kube-apiserver $(ENVTEST_DIR)/etcd $(ENVTEST_DIR)/kubectl ## Build the control plane envtest runs (kube-apiserver, etcd).

# envtest's kube-apiserver and etcd are links to the local cluster's
# (make/cluster.mk): compiled and linked once for both, and make test
# compiles no other part of Kubernetes.
$(ENVTEST_DIR)/kube-apiserver: $(KUBE_APISERVER)
	mkdir -p $(@D) && ln -sf $< $@
$(ENVTEST_DIR)/etcd: $(ETCD)
	mkdir -p $(@D) && ln -sf $< $@
$(ENVTEST_DIR)/kubectl:
	mkdir -p $(@D) && ln -sf "$$(command -v $(KUBECTL))" $@

# operator-sdk's two programs; the version it reports (and stamps into
# bundles) is set as its own release build sets it.
.PHONY: operator-sdk
operator-sdk: $(OPERATOR_SDK) ## Build operator-sdk.
$(OPERATOR_SDK): $(SDK_MODULE) | $(LOCALBIN)
	cd hack/tools/operator-sdk && $(BUILD_COST) go build \
		-ldflags "-X github.com/operator-framework/operator-sdk/internal/version.Version=$(OPERATOR_SDK_VERSION)" \
		-o $@ github.com/operator-framework/operator-sdk/cmd/operator-sdk

.PHONY: scorecard-test
scorecard-test: $(SCORECARD_TEST) ## Build scorecard-test, the program of the standard scorecard tests' image.
$(SCORECARD_TEST): $(SDK_MODULE) | $(LOCALBIN)
	cd hack/tools/operator-sdk && $(BUILD_COST) go build \
		-o $@ github.com/operator-framework/operator-sdk/images/scorecard-test

.PHONY: opm
opm: $(OPM) ## Build opm.
$(OPM): hack/catalog/go.mod | $(LOCALBIN)
	cd hack/catalog && $(BUILD_COST) go build -o $@ github.com/operator-framework/operator-registry/cmd/opm

.PHONY: render-catalog
render-catalog: $(RENDER_CATALOG) ## Build hack/catalog, which renders the catalog template from the bundle folders.
$(RENDER_CATALOG): hack/catalog/go.mod $(wildcard hack/catalog/*.go hack/catalog/internal/*/*.go) | $(LOCALBIN)
	cd hack/catalog && $(BUILD_COST) go build -o $@ .

.PHONY: operatorhub-writer
operatorhub-writer: $(OPERATORHUB) ## Build hack/catalog/operatorhub, which writes a version's folder for OperatorHub.io.
$(OPERATORHUB): hack/catalog/go.mod $(wildcard hack/catalog/operatorhub/*.go hack/catalog/internal/*/*.go) | $(LOCALBIN)
	cd hack/catalog && $(BUILD_COST) go build -o $@ ./operatorhub

.PHONY: grpc-health-probe
grpc-health-probe: $(GRPC_HEALTH_PROBE) ## Build grpc_health_probe, the catalog image's readiness probe.
$(GRPC_HEALTH_PROBE): hack/tools/olm/go.mod | $(LOCALBIN)
	cd hack/tools/olm && $(BUILD_COST) go build -ldflags "-s -w" -o $@ github.com/grpc-ecosystem/grpc-health-probe

# go-install-tool builds $(2), a package@version, into $(1), static, with
# the linker flags $(3) and the build tags $(4), if any, beside GO_TAGS.
define go-install-tool
@echo "Building $(2)"
@tmp=$$(mktemp -d) && GOBIN=$$tmp $(BUILD_COST) $(GO_INSTALL) -ldflags "-s -w $(3)" -tags "$(GO_TAGS)$(if $(4),$(comma)$(4))" $(2) \
	&& mv $$tmp/* $(1) && rm -rf $$tmp
endef
