# seed-operator's Makefile: the settings users change and the targets of
# everyday work (kubebuilder's names). The rest lives in make/: see the
# include lines below.

DEPLOY ?= false
MONITORING ?= false
# The version of the operator, and the images of its manager, OLM bundle,
# scorecard tests and catalog.
VERSION ?= 0.3.2
IMAGE_TAG_BASE ?= quay.io/seed-operators/seed-operator
IMG ?= $(IMAGE_TAG_BASE):v$(VERSION)
BUNDLE_IMG ?= $(IMAGE_TAG_BASE)-bundle:v$(VERSION)
SCORECARD_IMG ?= $(IMAGE_TAG_BASE)-scorecard:v$(VERSION)
CATALOG_IMG ?= $(IMAGE_TAG_BASE)-catalog:v$(VERSION)
# The channels the bundle is published in (catalog-templates/ says which
# versions each holds).
CHANNELS ?= candidate,stable
DEFAULT_CHANNEL ?= stable
# The released versions, each bundles/X.Y.Z, and the commit each was
# released from: the catalog's manager images are built from those commits,
# as their Dockerfile built them.
RELEASES = 0.1.0=2fb085721130be75c60a13f34ef0a6881a6cf254 0.2.0=d4d9724b56f0e05619ffb8e579da1e70880baf2d 0.2.1=a222f123a5109ffd24624744c4c17e2f4d7a8666 0.2.2=decc436f4ac915ad65a2d197d29dc4fb7900f09d 0.3.0=9f99b9f49f9625e968f2940d9f318393e0fd5c17 0.3.1=3b4121a3fb39923aba35c68e6aebb354559078b7

# Every Go build and test here, of the operator and of every tool, is
# static and -trimpath, with the same build tags: a package compiled once
# serves them all from the build cache, where other flags, or tags that
# select other files of it or of a package it imports, would compile it
# again (minutes, for the Kubernetes libraries, on a cold cache). The tags
# are those the Kubernetes release builds with, and the one that spares
# containers/image's OpenPGP its C library; each selects files of the few
# programs that import what it concerns. hack/tools/shared_test.go fails
# when a recipe builds with other tags, or a module resolves the
# Kubernetes libraries to other versions.
GO_TAGS = selinux,notest,grpcnotrace,containers_image_openpgp
export CGO_ENABLED = 0
export GOFLAGS = -trimpath -tags=$(GO_TAGS)

# The Go release that builds, tests and checks the operator's module, and
# so the standard library the manager ships with: the standard library's
# vulnerabilities are fixed only by a newer release, which the module proxy
# serves as golang.org/toolchain. Every tool built here builds with it too,
# so that the Kubernetes libraries the operator and the tools share compile
# once, not once per Go release.
GO_TOOLCHAIN ?= go1.27.3
export GOTOOLCHAIN = $(GO_TOOLCHAIN)
GO = go

# Files and folders that generators write; verify fails when they differ
# from what is committed.
# The Helm chart reads the rules of these roles, the alerting rules and the
# dashboard from copies in its files/.
CHART = dist/chart
CHART_ROLES = role.yaml cluster_role.yaml leader_election_role.yaml metrics_auth_role.yaml metrics_reader_role.yaml \
	admin_role.yaml editor_role.yaml viewer_role.yaml

GENERATED = api/v1alpha1/zz_generated.deepcopy.go config/crd/bases config/rbac/role.yaml config/rbac/cluster_role.yaml go.mod go.sum \
	$(CHART)/crds $(CHART)/files \
	config/manifests config/manager config/scorecard bundle bundle.Dockerfile catalog \
	hack/catalog/go.mod hack/catalog/go.sum hack/tools/operator-sdk/go.mod hack/tools/operator-sdk/go.sum \
	hack/tools/cluster/go.mod hack/tools/cluster/go.sum hack/images/go.mod hack/images/go.sum \
	hack/tools/olm/go.mod hack/tools/olm/go.sum hack/tools/olmv1/go.mod hack/tools/olmv1/go.sum \
	hack/tools/monitoring/go.mod hack/tools/monitoring/go.sum \
	hack/tools/vuln/go.mod hack/tools/vuln/go.sum

SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

.PHONY: all
all: build

# The parts, in this order: a part may use in its prerequisites and
# conditionals (which make expands as it reads them) only what an earlier
# one defines. tools.mk defines every tool's version and path in ./bin.
include make/tools.mk
include make/cluster.mk
include make/images.mk
include make/olm.mk
include make/monitoring.mk
include make/test.mk

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen ## Generate the CRDs and the ClusterRoles from the kubebuilder markers, and copy them, config/rbac's roles, the alerting rules and the dashboard into the Helm chart.
	@# The generators write into a folder of this run's own; hack/sync.sh
	@# puts into the tree the files that changed, so that a build reading
	@# the tree meanwhile never sees one half-written.
	out=$$(mktemp -d $(LOCALBIN)/manifests.XXXXXX) && trap 'rm -rf "$$out"' EXIT && \
	$(CONTROLLER_GEN) crd paths="./api/..." output:crd:artifacts:config=$$out/crd && \
	$(CONTROLLER_GEN) rbac:roleName=manager-role paths="./controllers/..." output:rbac:dir=$$out/rbac && \
	mkdir -p $$out/roles $$out/files/rbac $$out/files/prometheus $$out/files/grafana && \
	$(call split-roles,$$out/rbac/role.yaml,$$out/roles) && \
	hack/sync.sh $$out/roles config/rbac && \
	cp $(addprefix config/rbac/,$(CHART_ROLES)) $$out/files/rbac/ && \
	cp config/prometheus/rules.yaml $$out/files/prometheus/ && \
	cp config/grafana/*.json $$out/files/grafana/ && \
	hack/sync.sh --mirror $$out/crd config/crd/bases && \
	hack/sync.sh --mirror $$out/crd $(CHART)/crds && \
	hack/sync.sh --mirror $$out/files $(CHART)/files
# controller-gen writes every role into one file: the manager's own, and the
# one of objects of no namespace (roleName=manager-cluster-role), which the
# bundle and the chart grant cluster-wide in every mode.
# $(call split-roles,FILE,DIR) writes them into DIR's role.yaml and cluster_role.yaml.
split-roles = awk -v dir=$(2) 'BEGIN { RS = "---\n" } NF { file = dir "/" ($$0 ~ /name: manager-cluster-role\n/ ? "cluster_role.yaml" : "role.yaml"); printf "---\n%s", $$0 > file }' $(1)

.PHONY: generate
generate: controller-gen ## Generate the DeepCopy methods of the API types.
	out=$$(mktemp -d $(LOCALBIN)/generate.XXXXXX) && trap 'rm -rf "$$out"' EXIT && \
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..." output:object:dir=$$out && \
	hack/sync.sh $$out api/v1alpha1

.PHONY: fmt
fmt: $(BIN_MODULE) ## Run go fmt.
	$(GO) fmt ./...

.PHONY: vet
vet: $(BIN_MODULE) ## Run go vet.
	$(BUILD_COST_OF) "go vet" $(GO) vet ./...

.PHONY: test
test: manifests generate fmt kustomize helm promtool $(ENVTEST_PREREQ) ## Run the unit and envtest suites (bundle, chart and alerting rule checks included).
	@# No vet, make vet's or go test's own: either analyses every
	@# dependency, which the tests do not need; make build and make lint
	@# vet.
	@# Twice as many packages as cores run at once: the envtest suites
	@# mostly wait. The test programs carry no symbol table or DWARF, which
	@# a fifth of their linking writes; a panic still prints its stack.
	@# envtest's API servers get two minutes to start, not envtest's 20 s,
	@# which they missed on a machine busy with a cluster's suites.
	KUBEBUILDER_CONTROLPLANE_START_TIMEOUT=2m KUBEBUILDER_ASSETS="$(KUBEBUILDER_ASSETS)" SNAPSHOT_CRDS=$(SNAPSHOT_CRDS) HELM=$(HELM) KUSTOMIZE=$(KUSTOMIZE) PROMTOOL=$(PROMTOOL) VERSION=$(VERSION) \
		$(TIMED) "go test" $(GO) test -p $$(( $$(nproc) * 2 )) -vet=off -ldflags="-s -w" ./... -coverprofile cover.out

.PHONY: test-hack
test-hack: ## Run the tests of the programs under hack/ (CI runs them): the catalog renderer, the image builder, the CSI driver, and what each program compiles (which downloads every tool's sources).
	$(TIMED) "go test hack/tools" $(GO) test -tags=$(GO_TAGS),tool_sources ./hack/tools
	cd hack/catalog && $(TIMED) "go test hack/catalog" go test ./...
	cd hack/images && $(TIMED) "go test hack/images" go test ./...
	cd hack/tools/cluster && $(TIMED) "go test csi-tmpfs" go test ./csi-tmpfs/

.PHONY: lint
lint: golangci-lint $(BIN_MODULE) ## Run golangci-lint, on the operator and on the modules under hack/.
	@# golangci-lint loads the packages with tags of its own, not GOFLAGS';
	@# tool_sources adds a test file of hack/tools.
	$(GOLANGCI_LINT) run --build-tags $(GO_TAGS),tool_sources
	cd hack/catalog && $(GOLANGCI_LINT) run --build-tags $(GO_TAGS)
	cd hack/images && $(GOLANGCI_LINT) run --build-tags $(GO_TAGS)
	cd hack/tools/cluster && $(GOLANGCI_LINT) run --build-tags $(GO_TAGS) ./csi-tmpfs/

.PHONY: lint-fix
lint-fix: golangci-lint ## Run golangci-lint and fix what it can.
	$(GOLANGCI_LINT) run --fix

.PHONY: verify
verify: manifests generate bundle catalog verify-tidy ## Fail when a generated file (CRDs, RBAC, deepcopy, bundle, catalog) is not what its generator writes, or a go.mod is not tidy.
	@if [ -n "$$(git status --porcelain -- $(GENERATED))" ]; then \
		git status --porcelain -- $(GENERATED); git --no-pager diff -- $(GENERATED); \
		echo "Generated files are stale: run 'make manifests generate' and 'go mod tidy', then commit."; exit 1; \
	fi

# CI runs this first: it takes seconds, where the rest of verify needs the
# bundle's tools built.
.PHONY: verify-tidy
verify-tidy: $(BIN_MODULE) ## Fail when a go.mod or go.sum is not what go mod tidy writes.
	go mod tidy
	cd hack/catalog && go mod tidy
	cd hack/tools/operator-sdk && go mod tidy
	cd hack/tools/cluster && go mod tidy
	cd hack/images && go mod tidy
	cd hack/tools/olm && go mod tidy
	cd hack/tools/olmv1 && go mod tidy
	cd hack/tools/monitoring && go mod tidy
	cd hack/tools/vuln && go mod tidy
	@if [ -n "$$(git status --porcelain -- '*go.mod' '*go.sum')" ]; then \
		git --no-pager diff -- '*go.mod' '*go.sum'; echo "A go.mod is not tidy: run 'go mod tidy' in its module, then commit."; exit 1; \
	fi

##@ Build

.PHONY: build
build: manifests generate fmt vet manager ## Build the manager binary, static as in its image, after the generators, fmt and vet.

.PHONY: manager
manager: ## Build the manager binary alone, from the sources as they are.
	$(BUILD_COST_OF) $(LOCALBIN)/manager $(GO) build -o $(LOCALBIN)/manager .

.PHONY: plugin
plugin: ## Build the kubectl plugin, bin/kubectl-seed (on the PATH, it answers `kubectl seed`), and bin/kubectl_complete-seed, which completes it.
	$(BUILD_COST_OF) $(LOCALBIN)/kubectl-seed $(GO) build -o $(LOCALBIN)/kubectl-seed ./cmd/kubectl-seed
	printf '#!/bin/sh\n# kubectl runs this to complete `kubectl seed`.\nexec kubectl-seed __complete "$$@"\n' > $(LOCALBIN)/kubectl_complete-seed
	chmod +x $(LOCALBIN)/kubectl_complete-seed

.PHONY: plugin-dist
plugin-dist: ## Build kubectl-seed's release archives for linux, darwin and windows on amd64 and arm64, their checksums and the krew manifest, into bin/plugin-dist.
	VERSION=$(VERSION) OUT=$(LOCALBIN)/plugin-dist GO=$(GO) hack/plugin-dist.sh

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

# make demo runs against the local cluster unless KUBECONFIG=... is given on
# its command line: a KUBECONFIG merely exported in the shell is not taken
# as a wish to install into that cluster.
# On the local cluster with a real node, the samples run there, from the
# images built here; DEPLOY=true runs the operator in the cluster.
ifeq ($(origin KUBECONFIG),command line)
DEMO_KUBECONFIG = $(KUBECONFIG)
DEMO_STEPS =
DEMO_ENV =
else
DEMO_KUBECONFIG = $(CLUSTER_KUBECONFIG)
DEMO_STEPS = "the local cluster's programs=cluster-programs" "starting the local cluster=cluster-up"
DEMO_ENV =
ifneq ($(CLUSTER_REAL_NODES),0)
DEMO_ENV = IMAGES_RECORD=$(IMAGES_RECORD) INFRA_IMAGES=$(LOCALBIN)/cluster/infra-images.json STEER="$(CLUSTER) steer"
endif
endif
# The generated files are committed (make verify checks them): after a
# change to the API types, make manifests generate before make demo.
DEMO_STEPS += "the operator=manager kustomize"
# The samples run from images built here; the operator's own image only
# when it is deployed.
ifneq ($(DEMO_ENV),)
DEMO_STEPS += "the images the samples run=$(if $(filter true,$(DEPLOY)),images,demo-images)"
endif
# MONITORING=true runs Prometheus (make monitoring-up), which scrapes the
# operator in the cluster: it implies DEPLOY=true.
ifeq ($(MONITORING),true)
override DEPLOY = true
DEMO_STEPS += "Prometheus=monitoring-up"
endif

.PHONY: demo
demo: ## Run the operator on the local cluster (or KUBECONFIG=...) with every sample Ready: a local process under its ServiceAccount, or DEPLOY=true in the cluster; MONITORING=true adds Prometheus, scraping it and loading its alerts. EXIT_WHEN_READY=true to stop then.
	@MAKE="$(MAKE)" BACKGROUND="$(MAKE) --no-print-directory demo-prefetch" hack/steps.sh $(LOCALBIN)/demo $(DEMO_STEPS)
	KUBECONFIG=$(DEMO_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) MANAGER=$(LOCALBIN)/manager $(DEMO_ENV) DEPLOY=$(DEPLOY) MONITORING=$(MONITORING) hack/demo.sh

##@ OLM bundle and catalog

.PHONY: bundle
bundle: manifests kustomize operator-sdk ## Generate the OLM bundle of VERSION in bundle/ (and bundle.Dockerfile), then validate it.
	VERSION=$(VERSION) IMG=$(IMG) SCORECARD_IMG=$(SCORECARD_IMG) CHANNELS=$(CHANNELS) DEFAULT_CHANNEL=$(DEFAULT_CHANNEL) \
		OPERATOR_SDK=$(OPERATOR_SDK) KUSTOMIZE=$(KUSTOMIZE) $(TIMED) "bundle" hack/bundle.sh

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

.PHONY: catalog-build
catalog-build: ## Build the catalog image (needs a container engine).
	docker build -f catalog.Dockerfile -t $(CATALOG_IMG) .

.PHONY: catalog-push
catalog-push: ## Push the catalog image.
	docker push $(CATALOG_IMG)
