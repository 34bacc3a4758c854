# The version of the operator, and the images of its manager, OLM bundle,
# scorecard tests and catalog.
VERSION ?= 0.2.1
IMAGE_TAG_BASE ?= quay.io/seed-operators/seed-operator
IMG ?= $(IMAGE_TAG_BASE):v$(VERSION)
BUNDLE_IMG ?= $(IMAGE_TAG_BASE)-bundle:v$(VERSION)
SCORECARD_IMG ?= $(IMAGE_TAG_BASE)-scorecard:v$(VERSION)
CATALOG_IMG ?= $(IMAGE_TAG_BASE)-catalog:v$(VERSION)
# The channels the bundle is published in (catalog-templates/ says which
# versions each holds).
CHANNELS ?= candidate,stable
DEFAULT_CHANNEL ?= stable

# Tools, pinned. Each is built from source through the Go module proxy into
# ./bin under a name that carries its version, so a second run reuses it and
# a version bump rebuilds it.
CONTROLLER_TOOLS_VERSION ?= v0.23.0
KUSTOMIZE_VERSION ?= v5.8.1
GOLANGCI_LINT_VERSION ?= v2.15.0
# The control plane envtest runs: kube-apiserver from k8s.io/kubernetes (its
# staging modules are published as v0.<minor>.<patch>) and etcd.
KUBERNETES_VERSION ?= v1.37.2
KUBERNETES_STAGING_VERSION ?= $(subst v1.,v0.,$(KUBERNETES_VERSION))
ETCD_VERSION ?= v3.6.16
# kwok plays the kubelets of the local cluster's fake nodes.
KWOK_VERSION ?= v0.8.0
# operator-sdk (and its scorecard-test program) and operator-registry (opm,
# and hack/catalog's renderer) are built from modules of their own, whose
# go.mod pins them; their names in ./bin carry that version.
module-version = $(shell awk '{ for (i = 1; i < NF; i++) if ($$i == "$(2)") { print $$(i + 1); exit } }' $(1))
OPERATOR_SDK_VERSION := $(call module-version,hack/tools/operator-sdk/go.mod,github.com/operator-framework/operator-sdk)
OPM_VERSION := $(call module-version,hack/catalog/go.mod,github.com/operator-framework/operator-registry)

LOCALBIN ?= $(shell pwd)/bin
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
KUSTOMIZE ?= $(LOCALBIN)/kustomize-$(KUSTOMIZE_VERSION)
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
KUBE_APISERVER ?= $(LOCALBIN)/kube-apiserver-$(KUBERNETES_VERSION)
ETCD ?= $(LOCALBIN)/etcd-$(ETCD_VERSION)
KUBE_CONTROLLER_MANAGER ?= $(LOCALBIN)/kube-controller-manager-$(KUBERNETES_VERSION)
KUBE_SCHEDULER ?= $(LOCALBIN)/kube-scheduler-$(KUBERNETES_VERSION)
KWOK ?= $(LOCALBIN)/kwok-$(KWOK_VERSION)
OPERATOR_SDK ?= $(LOCALBIN)/operator-sdk-$(OPERATOR_SDK_VERSION)
SCORECARD_TEST ?= $(LOCALBIN)/scorecard-test-$(OPERATOR_SDK_VERSION)
OPM ?= $(LOCALBIN)/opm-$(OPM_VERSION)
RENDER_CATALOG ?= $(LOCALBIN)/render-catalog-$(OPM_VERSION)
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
KUBE_LDFLAGS = -X k8s.io/component-base/version.gitVersion=$(KUBERNETES_VERSION) \
	-X k8s.io/component-base/version.gitMajor=$(word 1,$(subst ., ,$(KUBERNETES_VERSION:v%=%))) \
	-X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(KUBERNETES_VERSION:v%=%))) \
	-X k8s.io/component-base/version.gitTreeState=clean

# Files and folders that generators write; verify fails when they differ
# from what is committed.
GENERATED = api/v1alpha1/zz_generated.deepcopy.go config/crd/bases config/rbac/role.yaml go.mod go.sum \
	config/manifests config/manager config/scorecard bundle bundle.Dockerfile catalog \
	hack/catalog/go.mod hack/catalog/go.sum hack/tools/operator-sdk/go.mod hack/tools/operator-sdk/go.sum

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
manifests: controller-gen ## Generate the CRDs and the ClusterRole from the kubebuilder markers.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="./api/...;./controllers/..." output:crd:artifacts:config=config/crd/bases

.PHONY: generate
generate: controller-gen ## Generate the DeepCopy methods of the API types.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."

.PHONY: fmt
fmt: ## Run go fmt.
	go fmt ./...

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: test
test: manifests generate fmt vet bundle scorecard-test $(ENVTEST_PREREQ) ## Run the unit and envtest suites (bundle validation included) and the static scorecard tests.
	KUBEBUILDER_ASSETS="$(KUBEBUILDER_ASSETS)" go test ./... -coverprofile cover.out
	cd hack/catalog && go test -tags containers_image_openpgp ./...
	SCORECARD_TEST=$(SCORECARD_TEST) hack/scorecard.sh static

.PHONY: lint
lint: golangci-lint ## Run golangci-lint, on the operator and on hack/catalog.
	$(GOLANGCI_LINT) run
	cd hack/catalog && $(GOLANGCI_LINT) run --build-tags containers_image_openpgp

.PHONY: lint-fix
lint-fix: golangci-lint ## Run golangci-lint and fix what it can.
	$(GOLANGCI_LINT) run --fix

.PHONY: verify
verify: manifests generate bundle catalog ## Fail when a generated file (CRDs, RBAC, deepcopy, bundle, catalog) is not what its generator writes, or a go.mod is not tidy.
	go mod tidy
	cd hack/catalog && go mod tidy
	cd hack/tools/operator-sdk && go mod tidy
	@if [ -n "$$(git status --porcelain -- $(GENERATED))" ]; then \
		git status --porcelain -- $(GENERATED); git --no-pager diff -- $(GENERATED); \
		echo "Generated files are stale: run 'make manifests generate' and 'go mod tidy', then commit."; exit 1; \
	fi

##@ Build

.PHONY: build
build: manifests generate fmt vet ## Build the manager binary.
	go build -o bin/manager .

.PHONY: run
run: manifests generate fmt vet ## Run the operator from your host, against the cluster of the current kubeconfig.
	go run . --health-probe-bind-address=127.0.0.1:8081

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

.PHONY: scorecard-local
scorecard-local: cluster-up build kustomize bundle scorecard-test seed-scorecard ## Run every scorecard test on this machine: the standard ones on bundle/, the project's own on the local cluster.
	KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) MANAGER=$(LOCALBIN)/manager SCORECARD_TEST=$(SCORECARD_TEST) \
		SEED_SCORECARD=$(LOCALBIN)/seed-scorecard hack/scorecard-local.sh

.PHONY: seed-scorecard
seed-scorecard: ## Build the project's own scorecard tests (scorecard/).
	go build -o $(LOCALBIN)/seed-scorecard ./scorecard

.PHONY: catalog-build
catalog-build: ## Build the catalog image (needs a container engine).
	docker build -f catalog.Dockerfile -t $(CATALOG_IMG) .

.PHONY: catalog-push
catalog-push: ## Push the catalog image.
	docker push $(CATALOG_IMG)

##@ Local cluster

# What hack/cluster.sh runs; the ports and the number of nodes can be set
# the same way (APISERVER_PORT, CLUSTER_NODES, ...).
CLUSTER_BINARIES = $(ETCD) $(KUBE_APISERVER) $(KUBE_CONTROLLER_MANAGER) $(KUBE_SCHEDULER) $(KWOK) $(KUSTOMIZE)
CLUSTER_ENV = ETCD=$(ETCD) KUBE_APISERVER=$(KUBE_APISERVER) KUBE_CONTROLLER_MANAGER=$(KUBE_CONTROLLER_MANAGER) \
	KUBE_SCHEDULER=$(KUBE_SCHEDULER) KWOK=$(KWOK) KWOK_VERSION=$(KWOK_VERSION) KUSTOMIZE=$(KUSTOMIZE)
CLUSTER_KUBECONFIG = $(LOCALBIN)/cluster/kubeconfig

.PHONY: cluster-up
cluster-up: $(CLUSTER_BINARIES) ## Start a local cluster on loopback (etcd, control plane, kwok nodes); a no-op when it runs.
	$(CLUSTER_ENV) hack/cluster.sh up

.PHONY: cluster-down
cluster-down: ## Stop the local cluster and delete its state (its logs stay until the next cluster-up).
	hack/cluster.sh down

# make demo runs against the local cluster unless KUBECONFIG=... is given on
# its command line: a KUBECONFIG merely exported in the shell is not taken
# as a wish to install into that cluster.
ifeq ($(origin KUBECONFIG),command line)
DEMO_KUBECONFIG = $(KUBECONFIG)
DEMO_CLUSTER =
else
DEMO_KUBECONFIG = $(CLUSTER_KUBECONFIG)
DEMO_CLUSTER = cluster-up
endif

.PHONY: demo
demo: $(DEMO_CLUSTER) build kustomize ## Run the operator on the local cluster (or KUBECONFIG=...) under its own ServiceAccount, with every sample Ready. EXIT_WHEN_READY=true to stop then.
	KUBECONFIG=$(DEMO_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) MANAGER=$(LOCALBIN)/manager hack/demo.sh

.PHONY: test-e2e
test-e2e: cluster-up build kustomize ## Run the end-to-end suite against the local cluster, with the operator as local processes.
	KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) hack/operator.sh install
	KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) MANAGER=$(LOCALBIN)/manager \
		go test -tags e2e ./test/e2e -timeout 20m -v -ginkgo.v

.PHONY: cluster-status
cluster-status: ## Tell which processes of the local cluster run.
	hack/cluster.sh status

##@ Tools

$(LOCALBIN):
	mkdir -p $(LOCALBIN)

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Build controller-gen.
$(CONTROLLER_GEN): | $(LOCALBIN)
	$(call go-install-tool,$@,sigs.k8s.io/controller-tools/cmd/controller-gen,$(CONTROLLER_TOOLS_VERSION))

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Build kustomize.
$(KUSTOMIZE): | $(LOCALBIN)
	$(call go-install-tool,$@,sigs.k8s.io/kustomize/kustomize/v5,$(KUSTOMIZE_VERSION))

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Build golangci-lint.
$(GOLANGCI_LINT): | $(LOCALBIN)
	$(call go-install-tool,$@,github.com/golangci/golangci-lint/v2/cmd/golangci-lint,$(GOLANGCI_LINT_VERSION))

.PHONY: envtest
envtest: $(ENVTEST_DIR)/kube-apiserver $(ENVTEST_DIR)/etcd $(ENVTEST_DIR)/kubectl ## Build the control plane envtest runs (kube-apiserver, etcd).

# kube-apiserver, kube-controller-manager and kube-scheduler, from
# k8s.io/kubernetes.
$(LOCALBIN)/kube-%-$(KUBERNETES_VERSION): | $(LOCALBIN)
	hack/build-module-binary.sh k8s.io/kubernetes $(KUBERNETES_VERSION) $(KUBERNETES_STAGING_VERSION) k8s.io/kubernetes/cmd/kube-$* $@ "$(KUBE_LDFLAGS)"

$(ETCD): | $(LOCALBIN)
	hack/build-module-binary.sh go.etcd.io/etcd/server/v3 $(ETCD_VERSION) $(ETCD_VERSION) go.etcd.io/etcd/server/v3 $@

.PHONY: kwok
kwok: $(KWOK) ## Build kwok.
$(KWOK): | $(LOCALBIN)
	$(call go-install-tool,$@,sigs.k8s.io/kwok/cmd/kwok,$(KWOK_VERSION))

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
$(RENDER_CATALOG): hack/catalog/go.mod hack/catalog/main.go | $(LOCALBIN)
	cd hack/catalog && go build -tags containers_image_openpgp -o $@ .

$(ENVTEST_DIR)/kube-apiserver: $(KUBE_APISERVER)
	mkdir -p $(@D) && ln -sf $< $@
$(ENVTEST_DIR)/etcd: $(ETCD)
	mkdir -p $(@D) && ln -sf $< $@
$(ENVTEST_DIR)/kubectl:
	mkdir -p $(@D) && ln -sf "$$(command -v $(KUBECTL))" $@

# go-install-tool builds package $(2) at version $(3) into $(1).
define go-install-tool
@echo "Building $(2)@$(3)"
@tmp=$$(mktemp -d) && GOBIN=$$tmp go install $(2)@$(3) && mv $$tmp/* $(1) && rm -rf $$tmp
endef
