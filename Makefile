DEPLOY ?= false
# The version of the operator, and the images of its manager, OLM bundle,
# scorecard tests and catalog.
VERSION ?= 0.2.2
IMAGE_TAG_BASE ?= quay.io/seed-operators/seed-operator
IMG ?= $(IMAGE_TAG_BASE):v$(VERSION)
BUNDLE_IMG ?= $(IMAGE_TAG_BASE)-bundle:v$(VERSION)
SCORECARD_IMG ?= $(IMAGE_TAG_BASE)-scorecard:v$(VERSION)
CATALOG_IMG ?= $(IMAGE_TAG_BASE)-catalog:v$(VERSION)
# The channels the bundle is published in (catalog-templates/ says which
# versions each holds).
CHANNELS ?= candidate,stable
DEFAULT_CHANNEL ?= stable

# Every Go build and test here, of the operator and of every tool, is
# static and -trimpath: a package compiled once serves them all from the
# build cache, where any other flag would compile it again (minutes, for
# the Kubernetes libraries, on a cold cache).
export CGO_ENABLED = 0
export GOFLAGS = -trimpath

# The Go release that builds, tests and checks the operator's module, and
# so the standard library the manager ships with: the standard library's
# vulnerabilities are fixed only by a newer release, which the module proxy
# serves as golang.org/toolchain. The modules under hack/, the tools that
# build, run and package it, build with the machine's Go (GOTOOLCHAIN=local).
GO_TOOLCHAIN ?= go1.27.3
GO_ENV = GOTOOLCHAIN=$(GO_TOOLCHAIN)
GO = $(GO_ENV) go

# Tools, pinned. Each is built from source through the Go module proxy into
# ./bin under a name that carries its version, so a second run reuses it and
# a version bump rebuilds it.
CONTROLLER_TOOLS_VERSION ?= v0.23.0
KUSTOMIZE_VERSION ?= v5.8.1
GOLANGCI_LINT_VERSION ?= v2.15.0
# Kubernetes, as hack/tools/kube pins it: envtest's kube-apiserver, and the
# local cluster's components in one program. And etcd.
ETCD_VERSION ?= v3.6.16
# kwok plays the kubelets of the local cluster's fake nodes.
KWOK_VERSION ?= v0.8.0
# operator-sdk (and its scorecard-test program) and operator-registry (opm,
# and hack/catalog's renderer) are built from modules of their own, whose
# go.mod pins them; their names in ./bin carry that version.
module-version = $(shell awk '!/^[[:space:]]*\/\// { for (i = 1; i < NF; i++) if ($$i == "$(2)") { print $$(i + 1); exit } }' $(1))
OPERATOR_SDK_VERSION := $(call module-version,hack/tools/operator-sdk/go.mod,github.com/operator-framework/operator-sdk)
OPM_VERSION := $(call module-version,hack/catalog/go.mod,github.com/operator-framework/operator-registry)
KUBERNETES_VERSION := $(call module-version,hack/tools/kube/go.mod,k8s.io/kubernetes)
# The registry and CoreDNS are built from modules of their own with slim
# mains, which leave out what the local cluster does not use.
DISTRIBUTION_VERSION := $(call module-version,hack/tools/registry/go.mod,github.com/distribution/distribution/v3)
COREDNS_VERSION := $(call module-version,hack/tools/coredns/go.mod,github.com/coredns/coredns)
# The real node of the local cluster: containerd, the CNI plugins and a
# registry on the host; CoreDNS and a volume provisioner in pods. runc and
# nftables come from Debian (hack/debian.sh).
CONTAINERD_VERSION ?= v2.4.2
CNI_PLUGINS_VERSION ?= v1.9.1
LOCAL_PATH_PROVISIONER_VERSION ?= v0.0.30
# Helm, for the chart in dist/chart.
HELM_VERSION ?= v4.3.1
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
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
KUBE_APISERVER ?= $(LOCALBIN)/kube-apiserver-$(KUBERNETES_VERSION)
ETCD ?= $(LOCALBIN)/etcd-$(ETCD_VERSION)
KUBE ?= $(LOCALBIN)/kube-$(KUBERNETES_VERSION)
KWOK ?= $(LOCALBIN)/kwok-$(KWOK_VERSION)
CONTAINERD ?= $(LOCALBIN)/containerd-$(CONTAINERD_VERSION)
CONTAINERD_SHIM ?= $(LOCALBIN)/containerd-shim-runc-v2-$(CONTAINERD_VERSION)
CNI_DIR ?= $(LOCALBIN)/cni-$(CNI_PLUGINS_VERSION)
REGISTRY ?= $(LOCALBIN)/registry-$(DISTRIBUTION_VERSION)
COREDNS ?= $(LOCALBIN)/coredns-$(COREDNS_VERSION)
LOCAL_PATH_PROVISIONER ?= $(LOCALBIN)/local-path-provisioner-$(LOCAL_PATH_PROVISIONER_VERSION)
OLM_DIR ?= $(LOCALBIN)/olm-$(OLM_VERSION)
GRPC_HEALTH_PROBE ?= $(LOCALBIN)/grpc_health_probe-$(GRPC_HEALTH_PROBE_VERSION)
OLMV1_DIR ?= $(LOCALBIN)/olmv1-$(OLMV1_VERSION)
VULNCHECK ?= $(LOCALBIN)/vulncheck-$(VULN_VERSION)-$(GO_TOOLCHAIN)
IMAGES ?= $(LOCALBIN)/images
OPERATOR_SDK ?= $(LOCALBIN)/operator-sdk-$(OPERATOR_SDK_VERSION)
SCORECARD_TEST ?= $(LOCALBIN)/scorecard-test-$(OPERATOR_SDK_VERSION)
OPM ?= $(LOCALBIN)/opm-$(OPM_VERSION)
RENDER_CATALOG ?= $(LOCALBIN)/render-catalog-$(OPM_VERSION)
OPERATORHUB ?= $(LOCALBIN)/operatorhub-$(OPM_VERSION)
ENVTEST_DIR ?= $(LOCALBIN)/envtest/$(KUBERNETES_VERSION)-etcd-$(ETCD_VERSION)
KUBECTL ?= kubectl

# envtest uses the control plane built here, unless KUBEBUILDER_ASSETS names
# another one.
ifeq ($(origin KUBEBUILDER_ASSETS),undefined)
KUBEBUILDER_ASSETS := $(ENVTEST_DIR)
ENVTEST_PREREQ := envtest
endif

# The version stamped into the control plane binaries, so clients (and OLM's
# minKubeVersion check) see a real version rather than v0.0.0-master.
kube-version-ldflags = -X $(1).gitVersion=$(KUBERNETES_VERSION) \
	-X $(1).gitMajor=$(word 1,$(subst ., ,$(KUBERNETES_VERSION:v%=%))) \
	-X $(1).gitMinor=$(word 2,$(subst ., ,$(KUBERNETES_VERSION:v%=%))) -X $(1).gitTreeState=clean
KUBE_LDFLAGS = -s -w $(call kube-version-ldflags,k8s.io/component-base/version) \
	$(call kube-version-ldflags,k8s.io/client-go/pkg/version)
# Built the way Kubernetes builds its release binaries: static, with its tags.
KUBE_BUILD = cd hack/tools/kube && go build -tags=selinux,notest,grpcnotrace -ldflags "$(KUBE_LDFLAGS)"

# Files and folders that generators write; verify fails when they differ
# from what is committed.
# The Helm chart reads the rules of these roles from copies in its files/.
CHART = dist/chart
CHART_ROLES = role.yaml leader_election_role.yaml metrics_auth_role.yaml metrics_reader_role.yaml \
	admin_role.yaml editor_role.yaml viewer_role.yaml

GENERATED = api/v1alpha1/zz_generated.deepcopy.go config/crd/bases config/rbac/role.yaml go.mod go.sum \
	$(CHART)/crds $(CHART)/files \
	config/manifests config/manager config/scorecard bundle bundle.Dockerfile catalog \
	hack/catalog/go.mod hack/catalog/go.sum hack/tools/operator-sdk/go.mod hack/tools/operator-sdk/go.sum \
	hack/tools/kube/go.mod hack/tools/kube/go.sum hack/images/go.mod hack/images/go.sum \
	hack/tools/coredns/go.mod hack/tools/coredns/go.sum hack/tools/registry/go.mod hack/tools/registry/go.sum \
	hack/tools/olm/go.mod hack/tools/olm/go.sum hack/tools/olmv1/go.mod hack/tools/olmv1/go.sum \
	hack/tools/vuln/go.mod hack/tools/vuln/go.sum

SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen ## Generate the CRDs and the ClusterRole from the kubebuilder markers, and copy them and config/rbac's roles into the Helm chart.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="./api/...;./controllers/..." output:crd:artifacts:config=config/crd/bases
	rm -rf $(CHART)/crds $(CHART)/files/rbac && mkdir -p $(CHART)/crds $(CHART)/files/rbac
	cp config/crd/bases/*.yaml $(CHART)/crds/
	cp $(addprefix config/rbac/,$(CHART_ROLES)) $(CHART)/files/rbac/

.PHONY: generate
generate: controller-gen ## Generate the DeepCopy methods of the API types.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."

.PHONY: fmt
fmt: $(BIN_MODULE) ## Run go fmt.
	$(GO) fmt ./...

.PHONY: vet
vet: $(BIN_MODULE) ## Run go vet.
	$(GO) vet ./...

.PHONY: test
test: manifests generate fmt vet bundle scorecard-test helm $(ENVTEST_PREREQ) ## Run the unit and envtest suites (bundle and chart checks included) and the static scorecard tests.
	KUBEBUILDER_ASSETS="$(KUBEBUILDER_ASSETS)" HELM=$(HELM) KUSTOMIZE=$(KUSTOMIZE) VERSION=$(VERSION) \
		$(GO) test ./... -coverprofile cover.out
	cd hack/catalog && go test -tags containers_image_openpgp ./...
	cd hack/images && go test ./...
	SCORECARD_TEST=$(SCORECARD_TEST) hack/scorecard.sh static

.PHONY: lint
lint: golangci-lint $(BIN_MODULE) ## Run golangci-lint, on the operator and on the modules under hack/.
	$(GOLANGCI_LINT) run
	cd hack/catalog && $(GOLANGCI_LINT) run --build-tags containers_image_openpgp
	cd hack/images && $(GOLANGCI_LINT) run

.PHONY: lint-fix
lint-fix: golangci-lint ## Run golangci-lint and fix what it can.
	$(GOLANGCI_LINT) run --fix

.PHONY: verify
verify: manifests generate bundle catalog $(BIN_MODULE) ## Fail when a generated file (CRDs, RBAC, deepcopy, bundle, catalog) is not what its generator writes, or a go.mod is not tidy.
	go mod tidy
	cd hack/catalog && go mod tidy
	cd hack/tools/operator-sdk && go mod tidy
	cd hack/tools/kube && go mod tidy
	cd hack/tools/coredns && go mod tidy
	cd hack/tools/registry && go mod tidy
	cd hack/images && go mod tidy
	cd hack/tools/olm && go mod tidy
	cd hack/tools/olmv1 && go mod tidy
	cd hack/tools/vuln && go mod tidy
	@if [ -n "$$(git status --porcelain -- $(GENERATED))" ]; then \
		git status --porcelain -- $(GENERATED); git --no-pager diff -- $(GENERATED); \
		echo "Generated files are stale: run 'make manifests generate' and 'go mod tidy', then commit."; exit 1; \
	fi

##@ Build

.PHONY: build
build: manifests generate fmt vet ## Build the manager binary, static as in its image.
	$(GO) build -o bin/manager .

.PHONY: run
run: manifests generate fmt vet ## Run the operator from your host, against the cluster of the current kubeconfig.
	$(GO) run . --health-probe-bind-address=127.0.0.1:8081

.PHONY: docker-build
docker-build: ## Build the manager image (needs a container engine).
	docker build -t $(IMG) .

.PHONY: docker-push
docker-push: ## Push the manager image.
	docker push $(IMG)

##@ Deployment

ifndef ignore-not-found
  ignore-not-found = false
endif

.PHONY: install
install: manifests kustomize ## Install the CRDs into the cluster of the current kubeconfig.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) apply --server-side -f -

.PHONY: uninstall
uninstall: manifests kustomize ## Remove the CRDs (and so every custom resource). ignore-not-found=true to ignore missing ones.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

.PHONY: deploy
deploy: manifests kustomize ## Deploy the operator, image IMG, to the cluster of the current kubeconfig.
	cd config/manager && $(KUSTOMIZE) edit set image controller=$(IMG)
	$(KUSTOMIZE) build config/default | $(KUBECTL) apply --server-side -f -

.PHONY: undeploy
undeploy: kustomize ## Remove the operator. ignore-not-found=true to ignore missing objects.
	$(KUSTOMIZE) build config/default | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

##@ OLM bundle and catalog

.PHONY: bundle
bundle: manifests kustomize operator-sdk ## Generate the OLM bundle of VERSION in bundle/ (and bundle.Dockerfile), then validate it.
	VERSION=$(VERSION) IMG=$(IMG) SCORECARD_IMG=$(SCORECARD_IMG) CHANNELS=$(CHANNELS) DEFAULT_CHANNEL=$(DEFAULT_CHANNEL) \
		OPERATOR_SDK=$(OPERATOR_SDK) KUSTOMIZE=$(KUSTOMIZE) hack/bundle.sh

.PHONY: chart
chart: manifests helm ## Package the Helm chart into bin/chart, for helm push.
	$(HELM) package $(CHART) --destination $(LOCALBIN)/chart

.PHONY: bundle-build
bundle-build: ## Build the bundle image (needs a container engine).
	docker build -f bundle.Dockerfile -t $(BUNDLE_IMG) .

.PHONY: bundle-push
bundle-push: ## Push the bundle image.
	docker push $(BUNDLE_IMG)

.PHONY: scorecard-build
scorecard-build: ## Build the image of the project's own scorecard tests (needs a container engine).
	docker build -f scorecard/Dockerfile -t $(SCORECARD_IMG) .

.PHONY: scorecard-push
scorecard-push: ## Push the scorecard tests' image.
	docker push $(SCORECARD_IMG)

.PHONY: catalog
catalog: render-catalog opm ## Render catalog/ from catalog-templates/ and the bundle folders, then validate it.
	$(RENDER_CATALOG) -template catalog-templates/seed-operator.yaml -bundles bundles -current bundle > catalog/seed-operator/catalog.yaml
	$(OPM) validate catalog

# A clone of the community operators repository (k8s-operatorhub/community-operators).
OPERATORHUB_DIR ?= $(LOCALBIN)/community-operators
.PHONY: operatorhub
operatorhub: catalog operatorhub-writer ## Write bundle VERSION, as a pull request to OperatorHub.io adds it, into OPERATORHUB_DIR/operators/seed-operator/, and validate it as that repository's pipeline does.
	$(OPERATORHUB) -version $(VERSION) -k8s-version $(KUBERNETES_VERSION) -out $(OPERATORHUB_DIR)
	@echo "operatorhub: wrote $(OPERATORHUB_DIR)/operators/seed-operator/$(VERSION) and ci.yaml"

.PHONY: scorecard-local
scorecard-local: cluster-up build kustomize bundle scorecard-test seed-scorecard ## Run every scorecard test on this machine: the standard ones on bundle/, the project's own on the local cluster.
	KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) MANAGER=$(LOCALBIN)/manager SCORECARD_TEST=$(SCORECARD_TEST) \
		SEED_SCORECARD=$(LOCALBIN)/seed-scorecard hack/scorecard-local.sh

.PHONY: seed-scorecard
seed-scorecard: ## Build the project's own scorecard tests (scorecard/).
	$(GO) build -o $(LOCALBIN)/seed-scorecard ./scorecard

.PHONY: catalog-build
catalog-build: ## Build the catalog image (needs a container engine).
	docker build -f catalog.Dockerfile -t $(CATALOG_IMG) .

.PHONY: catalog-push
catalog-push: ## Push the catalog image.
	docker push $(CATALOG_IMG)

##@ Local cluster

# What hack/cluster runs (test/cluster); the ports, the number of kwok
# nodes (CLUSTER_NODES) and of real nodes (CLUSTER_REAL_NODES, 1 or 0) can
# be set the same way (APISERVER_PORT=..., see README).
CLUSTER_REAL_NODES ?= 1
CLUSTER_BINARIES = $(ETCD) $(KUBE) $(KWOK) $(KUSTOMIZE) $(REGISTRY)
ifneq ($(CLUSTER_REAL_NODES),0)
CLUSTER_BINARIES += $(CONTAINERD) $(CONTAINERD_SHIM) $(CNI_DIR) $(IMAGES) infra-inputs host-packages
endif
CLUSTER_ENV = ETCD=$(ETCD) KUBE=$(KUBE) KWOK=$(KWOK) KWOK_VERSION=$(KWOK_VERSION) KUSTOMIZE=$(KUSTOMIZE) \
	REGISTRY=$(REGISTRY) CONTAINERD=$(CONTAINERD) CONTAINERD_SHIM=$(CONTAINERD_SHIM) CNI_DIR=$(CNI_DIR) \
	IMAGES=$(IMAGES) CLUSTER_REAL_NODES=$(CLUSTER_REAL_NODES) $(IMAGES_ENV)
CLUSTER_KUBECONFIG = $(LOCALBIN)/cluster/kubeconfig
CLUSTER_CA = $(LOCALBIN)/cluster/pki/ca.crt
# The scripts run it as a command (STEER, CLUSTER), where no environment
# assignment may lead: the machine's Go runs this helper of the cluster.
CLUSTER = go run ./hack/cluster
E2E_ENV = KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) MANAGER=$(LOCALBIN)/manager HELM=$(HELM) VERSION=$(VERSION) \
	IMAGES_RECORD=$(IMAGES_RECORD) AUDIT_LOG=$(LOCALBIN)/cluster/logs/audit.log

.PHONY: cluster-up
cluster-up: $(CLUSTER_BINARIES) ## Start the local cluster: control plane, kwok nodes and a real node; a no-op when it runs.
	$(CLUSTER_ENV) $(CLUSTER) up

.PHONY: cluster-down
cluster-down: ## Stop the local cluster, put the host back as it was, and delete the cluster's state (logs and images stay).
	$(CLUSTER_ENV) $(CLUSTER) down

.PHONY: cluster-status
cluster-status: ## Tell which processes of the local cluster run, and what the real node reports.
	$(CLUSTER_ENV) $(CLUSTER) status

# make demo runs against the local cluster unless KUBECONFIG=... is given on
# its command line: a KUBECONFIG merely exported in the shell is not taken
# as a wish to install into that cluster.
# On the local cluster with a real node, the samples run there, from the
# images built here; DEPLOY=true runs the operator in the cluster.
ifeq ($(origin KUBECONFIG),command line)
DEMO_KUBECONFIG = $(KUBECONFIG)
DEMO_CLUSTER =
DEMO_ENV =
else
DEMO_KUBECONFIG = $(CLUSTER_KUBECONFIG)
DEMO_CLUSTER = cluster-up
ifneq ($(CLUSTER_REAL_NODES),0)
DEMO_CLUSTER += images
DEMO_ENV = IMAGES_RECORD=$(IMAGES_RECORD) INFRA_IMAGES=$(LOCALBIN)/cluster/infra-images.json STEER="$(CLUSTER) steer"
endif
endif

.PHONY: demo
demo: $(DEMO_CLUSTER) build kustomize ## Run the operator on the local cluster (or KUBECONFIG=...) with every sample Ready: a local process under its ServiceAccount, or DEPLOY=true in the cluster. EXIT_WHEN_READY=true to stop then.
	KUBECONFIG=$(DEMO_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) MANAGER=$(LOCALBIN)/manager $(DEMO_ENV) DEPLOY=$(DEPLOY) hack/demo.sh

.PHONY: test-e2e
test-e2e: cluster-up build kustomize helm images ## Run the end-to-end suite against the local cluster, with the operator as local processes. FOCUS=regexp runs the specs it matches.
	KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) hack/operator.sh install
	$(E2E_ENV) $(GO) test -tags e2e ./test/e2e -timeout 30m -v -ginkgo.v $(if $(FOCUS),-ginkgo.focus='$(FOCUS)')

# The chaos specs share the end-to-end suite's operator processes, and
# build with the chaos tag only; they stop and start the cluster's
# components, so they get its configuration too.
# The random chaos spec kills replicas for CHAOS_DURATION (5m for the full
# form); CHAOS_SEED replays the run whose seed it printed.
CHAOS_DURATION ?= 60s
CHAOS_SEED ?=

.PHONY: test-chaos
test-chaos: cluster-up build kustomize helm images ## Kill the local cluster's kube-apiserver, then etcd, for 20 s each, cut the leader off the API server for 60 s, throttle the operator with 429s, edit its objects and their owners' spec from other clients for 30 s, and kill random replicas for CHAOS_DURATION under the operator's replicas while they reconcile every kind, and print how they ride it out and converge. FOCUS=regexp runs the specs it matches.
	KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) hack/operator.sh install
	$(E2E_ENV) $(CLUSTER_ENV) CLUSTER_DIR=$(LOCALBIN)/cluster CHAOS_DURATION=$(CHAOS_DURATION) CHAOS_SEED=$(CHAOS_SEED) \
		$(GO) test -tags e2e,chaos ./test/e2e -timeout 30m -v -ginkgo.v -ginkgo.label-filter=chaos $(if $(FOCUS),-ginkgo.focus='$(FOCUS)')

# Fuzzing: each fuzz target of the controllers runs for FUZZTIME, and what
# the builders make from every spec the CRDs admit is checked against the
# local cluster's API server, which outlives the fuzzer's workers (make
# test runs only the corpora, against envtest). A crasher lands in the
# package's testdata/fuzz, to commit as a regression seed.
FUZZTIME ?= 60s

.PHONY: fuzz
fuzz: cluster-up kustomize ## Fuzz every builder and status function for FUZZTIME each (default 60s), against the local cluster's API server.
	KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) hack/operator.sh install
	@for package in $$($(GO) list ./controllers/...); do \
		for target in $$($(GO) test -list '^Fuzz' $$package | grep '^Fuzz'); do \
			echo "fuzzing $$package $$target for $(FUZZTIME)"; \
			FUZZ_KUBECONFIG=$(CLUSTER_KUBECONFIG) $(GO) test $$package -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) || exit 1; \
		done; \
	done

# The OLM suite: OLM v0 and OLM v1 in the cluster install, upgrade and
# remove the operator from the catalog image, whose pods run on the real
# node.
.PHONY: test-olm
test-olm: olm-up olmv1-up operator-sdk ## Run the OLM suite against the local cluster: every install mode, upgrades, uninstall, operator-sdk run bundle and scorecard, the package as OperatorHub shows it, and OLM v1. FOCUS=regexp runs the specs it matches.
	KUBECONFIG=$(CLUSTER_KUBECONFIG) VERSION=$(VERSION) CATALOG_IMG=$(CATALOG_IMG) OPERATOR_SDK=$(OPERATOR_SDK) \
		REGISTRY_TLS=$$($(CLUSTER_ENV) $(CLUSTER) registry-tls) CLUSTER_CA=$(CLUSTER_CA) \
		IMAGES_RECORD=$(IMAGES_RECORD) OLM_IMAGES_RECORD=$(OLM_IMAGES_RECORD) \
		$(GO) test -tags olm ./test/olm -timeout 40m -v -ginkgo.v $(if $(FOCUS),-ginkgo.focus='$(FOCUS)')

# The benchmark's sizes: BENCH_N=100,1000,5000 where the machine has room.
BENCH_N ?= 100,1000
BENCH_IDLE ?= 60s
BENCH_KINDS ?= WebServer,Echo,ImmortalContainer,DemoVolume

.PHONY: bench
bench: cluster-up build kustomize ## Measure the operator against raw client-go on the kwok nodes (BENCH_N, BENCH_KINDS, BENCH_IDLE, BENCH_FLAGS for the operator, BENCH_MEMORY_LIMIT for its container's, BENCH_OUT): a table, and JSON (default in bin/bench).
	KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) MANAGER=$(LOCALBIN)/manager KWOK_VERSION=$(KWOK_VERSION) \
		$(GO) run ./test/bench -cluster $(LOCALBIN)/cluster -n $(BENCH_N) -kinds $(BENCH_KINDS) -idle $(BENCH_IDLE) \
		$(if $(BENCH_MEMORY_LIMIT),-memory-limit $(BENCH_MEMORY_LIMIT)) $(if $(BENCH_OUT),-out $(BENCH_OUT)) -- $(BENCH_FLAGS)

.PHONY: bench-compare
bench-compare: ## Print the ratios of two benchmark runs: OLD=a.json NEW=b.json.
	$(GO) run ./test/bench compare $(OLD) $(NEW)

##@ Images

# The images are built without a container engine by hack/images, from
# programs built here and Debian's packages, and pushed to the local
# cluster's registry; the record names what was pushed, by digest.
IMAGES_RECORD = $(LOCALBIN)/cluster/images.json
# An SPDX document of each image with Go programs, the operator's among them.
SBOM_DIR = $(LOCALBIN)/sbom
DEBS = $(LOCALBIN)/debs
DEBIAN_IMAGE_PACKAGES = busybox-static nginx nginx-common libc6 libcrypt1 libpcre2-8-0 libssl3 zlib1g
IMAGES_ENV = PAUSE=$(LOCALBIN)/pause FETCH=$(LOCALBIN)/fetch DEBS=$(DEBS) \
	COREDNS=$(COREDNS) COREDNS_VERSION=$(COREDNS_VERSION) \
	LOCAL_PATH_PROVISIONER=$(LOCAL_PATH_PROVISIONER) LOCAL_PATH_PROVISIONER_VERSION=$(LOCAL_PATH_PROVISIONER_VERSION) \
	MANAGER=$(LOCALBIN)/manager SEED_SCORECARD=$(LOCALBIN)/seed-scorecard BUNDLE_DIR=bundle \
	SCORECARD_TEST=$(SCORECARD_TEST) OPERATOR_SDK_VERSION=$(OPERATOR_SDK_VERSION) \
	IMAGE_TAG_BASE=$(IMAGE_TAG_BASE) VERSION=$(VERSION)

.PHONY: images
images: cluster-up $(IMAGES) infra-inputs build seed-scorecard scorecard-test ## Build the operator's, the scorecard's, the bundle's and the test images, push them to the local registry, and write an SPDX SBOM of each with Go programs to bin/sbom.
	$(IMAGES_ENV) $(IMAGES) push --registry=$$($(CLUSTER_ENV) $(CLUSTER) registry) --record=$(IMAGES_RECORD) --sbom=$(SBOM_DIR) infra test operator

# What the infra images are made of: the pause and fetch programs, CoreDNS,
# the volume provisioner and Debian's packages.
.PHONY: infra-inputs
infra-inputs: $(LOCALBIN)/pause $(LOCALBIN)/fetch $(COREDNS) $(LOCAL_PATH_PROVISIONER) $(DEBS)

.PHONY: host-packages
host-packages: ## Install the Debian packages the real node runs on the host: runc, nftables, conntrack.
	hack/debian.sh install runc nftables conntrack

$(DEBS):
	hack/debian.sh download $@ $(DEBIAN_IMAGE_PACKAGES)

##@ OLM

# The released versions, each bundles/X.Y.Z, and the commit each was
# released from: the catalog's manager images are built from those commits,
# as their Dockerfile built them.
RELEASES = 0.1.0=2fb085721130be75c60a13f34ef0a6881a6cf254 0.2.0=d4d9724b56f0e05619ffb8e579da1e70880baf2d 0.2.1=a222f123a5109ffd24624744c4c17e2f4d7a8666
RELEASED_MANAGERS = $(LOCALBIN)/releases
release-commit = $(patsubst $(1)=%,%,$(filter $(1)=%,$(RELEASES)))
OLM_IMAGES_RECORD = $(LOCALBIN)/cluster/olm-images.json
CATALOG_CACHE = $(LOCALBIN)/catalog-cache
OLM_IMAGES_ENV = $(IMAGES_ENV) OLM_DIR=$(OLM_DIR) OLM_VERSION=$(OLM_VERSION) OPM=$(OPM) OPM_VERSION=$(OPM_VERSION) \
	GRPC_HEALTH_PROBE=$(GRPC_HEALTH_PROBE) CATALOG_DIR=catalog CATALOG_CACHE=$(CATALOG_CACHE) \
	RELEASES=bundles RELEASED_MANAGERS=$(RELEASED_MANAGERS)
OLM_ENV = KUBECONFIG=$(CLUSTER_KUBECONFIG) HELM=$(HELM) OLM_IMAGES_RECORD=$(OLM_IMAGES_RECORD) \
	OLM_MODULE_DIR=$$(cd hack/tools/olm && go list -m -f '{{.Dir}}' github.com/operator-framework/operator-lifecycle-manager) \
	STEER="$(CLUSTER) steer"

.PHONY: olm-images
olm-images: images olm grpc-health-probe opm released-managers ## Build OLM's and opm's images, the catalog image, and every released bundle and manager it names, and push them to the local registry.
	rm -rf $(CATALOG_CACHE) && $(OPM) serve catalog --cache-dir=$(CATALOG_CACHE) --cache-only
	$(OLM_IMAGES_ENV) $(IMAGES) push --registry=$$($(CLUSTER_ENV) $(CLUSTER) registry) --record=$(OLM_IMAGES_RECORD) olm catalog

.PHONY: olm-up
olm-up: olm-images helm ## Install OLM v0 on the local cluster, from the images built here, with the packageserver's APIService.
	$(OLM_ENV) hack/olm.sh up

.PHONY: olm-down
olm-down: helm ## Remove OLM v0, and everything it installed, from the local cluster.
	$(OLM_ENV) hack/olm.sh down

# OLM v1 runs beside OLM v0, from the same registry; it serves the catalog
# image olm-images pushed.
OLMV1_IMAGES_RECORD = $(LOCALBIN)/cluster/olmv1-images.json
OLMV1_ENV = KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) OLMV1_IMAGES_RECORD=$(OLMV1_IMAGES_RECORD) \
	OLMV1_MODULE_DIR=$$(cd hack/tools/olmv1 && go list -m -f '{{.Dir}}' github.com/operator-framework/operator-controller) \
	CLUSTER="env $(CLUSTER_ENV) $(CLUSTER)" CLUSTER_CA=$(CLUSTER_CA)

.PHONY: olmv1-images
olmv1-images: images olmv1 ## Build OLM v1's images (operator-controller, catalogd) and push them to the local registry.
	OLMV1_DIR=$(OLMV1_DIR) OLMV1_VERSION=$(OLMV1_VERSION) \
		$(IMAGES) push --registry=$$($(CLUSTER_ENV) $(CLUSTER) registry) --record=$(OLMV1_IMAGES_RECORD) olmv1

.PHONY: olmv1-up
olmv1-up: olmv1-images olm-images kustomize ## Install OLM v1 (operator-controller and catalogd) on the local cluster, from the images built here.
	$(OLMV1_ENV) hack/olmv1.sh up

.PHONY: olmv1-down
olmv1-down: kustomize ## Remove OLM v1, and every ClusterExtension and ClusterCatalog, from the local cluster.
	$(OLMV1_ENV) hack/olmv1.sh down

.PHONY: released-managers
released-managers: $(foreach r,$(RELEASES),$(RELEASED_MANAGERS)/$(firstword $(subst =, ,$(r)))/manager)
$(RELEASED_MANAGERS)/%/manager:
	@commit=$(call release-commit,$*); git cat-file -e "$$commit^{commit}" 2>/dev/null || \
		{ echo "release $*: commit '$$commit' is not in this clone (a shallow clone?)" >&2; exit 1; }
	rm -rf $(@D) && mkdir -p $(@D)/src
	git archive $(call release-commit,$*) | tar -x -C $(@D)/src
	cd $(@D)/src && go build -ldflags="-s -w" -o ../manager .
	rm -rf $(@D)/src

##@ Tools

$(LOCALBIN):
	mkdir -p $(LOCALBIN)

# The tools built as package@version, and the modules of the operator and of
# every other tool built here: prefetch downloads all they need.
CONTROLLER_GEN_PACKAGE = sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS_VERSION)
KUSTOMIZE_PACKAGE = sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION)
HELM_PACKAGE = helm.sh/helm/v4/cmd/helm@$(HELM_VERSION)
GOLANGCI_LINT_PACKAGE = github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
CONTAINERD_PACKAGE = github.com/containerd/containerd/v2/cmd/containerd@$(CONTAINERD_VERSION)
CONTAINERD_SHIM_PACKAGE = github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@$(CONTAINERD_VERSION)
CNI_PLUGINS_PACKAGES = $(foreach p,main/bridge ipam/host-local main/loopback,github.com/containernetworking/plugins/plugins/$(p)@$(CNI_PLUGINS_VERSION))
LOCAL_PATH_PROVISIONER_PACKAGE = github.com/rancher/local-path-provisioner@$(LOCAL_PATH_PROVISIONER_VERSION)
KWOK_PACKAGE = sigs.k8s.io/kwok/cmd/kwok@$(KWOK_VERSION)
GO_INSTALL_PACKAGES = $(CONTROLLER_GEN_PACKAGE) $(KUSTOMIZE_PACKAGE) $(HELM_PACKAGE) $(GOLANGCI_LINT_PACKAGE) \
	$(CONTAINERD_PACKAGE) $(CONTAINERD_SHIM_PACKAGE) $(CNI_PLUGINS_PACKAGES) $(LOCAL_PATH_PROVISIONER_PACKAGE) $(KWOK_PACKAGE)
GO_MODULE_DIRS = . hack/catalog hack/images $(wildcard hack/tools/*)

.PHONY: prefetch
prefetch: ## Download the Go modules of every build here: on a cold machine, in the background, downloads then overlap compiling.
	@for dir in $(GO_MODULE_DIRS); do (cd $$dir && go mod download) || exit 1; done
	@for package in $(GO_INSTALL_PACKAGES); do go install -n $$package 2>/dev/null || exit 1; done
	@go mod download golang.org/x/vulndb@$(VULNDB_VERSION)
	@$(GO) version >/dev/null

$(BIN_MODULE): | $(LOCALBIN)
	printf 'module seed-operator.local/bin\n' >$@

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Build controller-gen.
$(CONTROLLER_GEN): | $(LOCALBIN)
	$(call go-install-tool,$@,$(CONTROLLER_GEN_PACKAGE))

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Build kustomize.
$(KUSTOMIZE): | $(LOCALBIN)
	$(call go-install-tool,$@,$(KUSTOMIZE_PACKAGE))

.PHONY: helm
helm: $(HELM) ## Build helm.
$(HELM): | $(LOCALBIN)
	$(call go-install-tool,$@,$(HELM_PACKAGE),-X helm.sh/helm/v4/internal/version.version=$(HELM_VERSION))

.PHONY: vulncheck
vulncheck: $(VULNCHECK) ## Fail on a known vulnerability the operator's code reaches, the standard library's of GO_TOOLCHAIN included (govulncheck, with the database of VULNDB_VERSION).
	go mod download golang.org/x/vulndb@$(VULNDB_VERSION)
	$(GO_ENV) $(VULNCHECK) -db $$(go env GOMODCACHE)/golang.org/x/vulndb@$(VULNDB_VERSION)/data/osv ./...
# Built by the Go it checks with: it type-checks that Go's standard library.
$(VULNCHECK): hack/tools/vuln/go.mod hack/tools/vuln/main.go | $(LOCALBIN)
	cd hack/tools/vuln && $(GO) build -o $@ .

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Build golangci-lint.
$(GOLANGCI_LINT): | $(LOCALBIN)
	$(call go-install-tool,$@,$(GOLANGCI_LINT_PACKAGE))

.PHONY: envtest
envtest: $(ENVTEST_DIR)/kube-apiserver $(ENVTEST_DIR)/etcd $(ENVTEST_DIR)/kubectl ## Build the control plane envtest runs (kube-apiserver, etcd).

# envtest needs the API server alone; the local cluster, every component.
$(KUBE_APISERVER): hack/tools/kube/go.mod | $(LOCALBIN)
	$(KUBE_BUILD) -o $@ k8s.io/kubernetes/cmd/kube-apiserver

.PHONY: kube
kube: $(KUBE) ## Build the Kubernetes components the local cluster runs, as one program.
$(KUBE): hack/tools/kube/go.mod hack/tools/kube/main.go | $(LOCALBIN)
	$(KUBE_BUILD) -o $@ .

$(ETCD): | $(LOCALBIN)
	hack/build-module-binary.sh go.etcd.io/etcd/server/v3 $(ETCD_VERSION) $(ETCD_VERSION) go.etcd.io/etcd/server/v3 $@

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
	mkdir -p $@.tmp && GOBIN=$@.tmp go install \
		-ldflags "-s -w -X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=$(CNI_PLUGINS_VERSION)" \
		$(CNI_PLUGINS_PACKAGES)
	mv $@.tmp $@

.PHONY: registry
registry: $(REGISTRY) ## Build the local cluster's image registry (distribution).
$(REGISTRY): hack/tools/registry/main.go hack/tools/registry/go.mod | $(LOCALBIN)
	cd hack/tools/registry && go build \
		-ldflags "-s -w -X github.com/distribution/distribution/v3/version.version=$(DISTRIBUTION_VERSION)" -o $@ .

$(COREDNS): hack/tools/coredns/main.go hack/tools/coredns/go.mod | $(LOCALBIN)
	cd hack/tools/coredns && go build -tags grpcnotrace -ldflags "-s -w" -o $@ .

$(LOCAL_PATH_PROVISIONER): | $(LOCALBIN)
	$(call go-install-tool,$@,$(LOCAL_PATH_PROVISIONER_PACKAGE))

# hack/images: the image builder, and the two small programs of the images
# it makes (the pause program and a URL fetcher for test pods).
IMAGES_SOURCES = $(wildcard hack/images/*.go) hack/images/go.mod
$(IMAGES): $(IMAGES_SOURCES) | $(LOCALBIN)
	cd hack/images && go build -o $@ .
$(LOCALBIN)/pause: hack/images/pause/main.go | $(LOCALBIN)
	cd hack/images && go build -ldflags "-s -w" -o $@ ./pause
$(LOCALBIN)/fetch: hack/images/fetch/main.go | $(LOCALBIN)
	cd hack/images && go build -ldflags "-s -w" -o $@ ./fetch

.PHONY: kwok
kwok: $(KWOK) ## Build kwok.
$(KWOK): | $(LOCALBIN)
	$(call go-install-tool,$@,$(KWOK_PACKAGE))

# Both programs of operator-sdk's module; the version it reports (and stamps
# into bundles) is set as its own release build sets it.
.PHONY: operator-sdk
operator-sdk: $(OPERATOR_SDK) ## Build operator-sdk.
$(OPERATOR_SDK): hack/tools/operator-sdk/go.mod | $(LOCALBIN)
	cd hack/tools/operator-sdk && go build -tags containers_image_openpgp \
		-ldflags "-X github.com/operator-framework/operator-sdk/internal/version.Version=$(OPERATOR_SDK_VERSION)" \
		-o $@ github.com/operator-framework/operator-sdk/cmd/operator-sdk

.PHONY: scorecard-test
scorecard-test: $(SCORECARD_TEST) ## Build scorecard-test, the program of the standard scorecard tests' image.
$(SCORECARD_TEST): hack/tools/operator-sdk/go.mod | $(LOCALBIN)
	cd hack/tools/operator-sdk && go build -tags containers_image_openpgp \
		-o $@ github.com/operator-framework/operator-sdk/images/scorecard-test

.PHONY: opm
opm: $(OPM) ## Build opm.
$(OPM): hack/catalog/go.mod | $(LOCALBIN)
	cd hack/catalog && go build -tags containers_image_openpgp -o $@ github.com/operator-framework/operator-registry/cmd/opm

.PHONY: render-catalog
render-catalog: $(RENDER_CATALOG) ## Build hack/catalog, which renders the catalog template from the bundle folders.
$(RENDER_CATALOG): hack/catalog/go.mod $(wildcard hack/catalog/*.go hack/catalog/internal/*/*.go) | $(LOCALBIN)
	cd hack/catalog && go build -tags containers_image_openpgp -o $@ .

.PHONY: operatorhub-writer
operatorhub-writer: $(OPERATORHUB) ## Build hack/catalog/operatorhub, which writes a version's folder for OperatorHub.io.
$(OPERATORHUB): hack/catalog/go.mod $(wildcard hack/catalog/operatorhub/*.go hack/catalog/internal/*/*.go) | $(LOCALBIN)
	cd hack/catalog && go build -tags containers_image_openpgp -o $@ ./operatorhub

# OLM's programs, as its image lays them out in /bin, stamped with its
# version as its release build does.
.PHONY: olm
olm: $(OLM_DIR) ## Build OLM v0's programs.
$(OLM_DIR): hack/tools/olm/go.mod | $(LOCALBIN)
	rm -rf $@.tmp && mkdir -p $@.tmp
	cd hack/tools/olm && go build -tags containers_image_openpgp \
		-ldflags "-s -w -X github.com/operator-framework/operator-lifecycle-manager/pkg/version.OLMVersion=$(OLM_VERSION:v%=%)" \
		-o $@.tmp/ $(foreach p,olm catalog package-server copy-content,github.com/operator-framework/operator-lifecycle-manager/cmd/$(p)) \
		github.com/operator-framework/operator-lifecycle-manager/util/cpb
	mv $@.tmp $@

# OLM v1's programs, stamped with its version as its release build does.
.PHONY: olmv1
olmv1: $(OLMV1_DIR) ## Build OLM v1's programs (operator-controller, catalogd).
$(OLMV1_DIR): hack/tools/olmv1/go.mod | $(LOCALBIN)
	rm -rf $@.tmp && mkdir -p $@.tmp
	cd hack/tools/olmv1 && go build -tags containers_image_openpgp \
		-ldflags "-s -w -X github.com/operator-framework/operator-controller/internal/shared/version.version=$(OLMV1_VERSION)" \
		-o $@.tmp/ $(foreach p,operator-controller catalogd,github.com/operator-framework/operator-controller/cmd/$(p))
	mv $@.tmp $@

.PHONY: grpc-health-probe
grpc-health-probe: $(GRPC_HEALTH_PROBE) ## Build grpc_health_probe, the catalog image's readiness probe.
$(GRPC_HEALTH_PROBE): hack/tools/olm/go.mod | $(LOCALBIN)
	cd hack/tools/olm && go build -ldflags "-s -w" -o $@ github.com/grpc-ecosystem/grpc-health-probe

$(ENVTEST_DIR)/kube-apiserver: $(KUBE_APISERVER)
	mkdir -p $(@D) && ln -sf $< $@
$(ENVTEST_DIR)/etcd: $(ETCD)
	mkdir -p $(@D) && ln -sf $< $@
$(ENVTEST_DIR)/kubectl:
	mkdir -p $(@D) && ln -sf "$$(command -v $(KUBECTL))" $@

# go-install-tool builds $(2), a package@version, into $(1), static, with
# the linker flags $(3) and the build tags $(4), if any.
define go-install-tool
@echo "Building $(2)"
@tmp=$$(mktemp -d) && GOBIN=$$tmp go install -ldflags "-s -w $(3)" -tags "$(4)" $(2) \
	&& mv $$tmp/* $(1) && rm -rf $$tmp
endef
