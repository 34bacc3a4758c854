# OLM on the local cluster: OLM v0's and v1's programs, their images and the
# catalog's, their install and removal, the managers of the released
# versions; and what checks the bundle and publishes it: the scorecard on
# this machine, and the OperatorHub.io folder.

##@ OLM

# The managers of RELEASES (set in the Makefile) are built here.
RELEASED_MANAGERS = $(LOCALBIN)/releases
release-commit = $(patsubst $(1)=%,%,$(filter $(1)=%,$(RELEASES)))
OLM_IMAGES_RECORD = $(LOCALBIN)/cluster/olm-images.json
CATALOG_CACHE = $(LOCALBIN)/catalog-cache
# The catalog as the last release published it, from that release's
# commit: the OLM suite's Automatic upgrade starts there, as users did. Not
# under RELEASED_MANAGERS, whose folders a manager's rebuild empties.
PREVIOUS_VERSION = $(firstword $(subst =, ,$(lastword $(RELEASES))))
# The released versions the OLM suite installs, and so whose managers it
# runs: the first, where its upgrade specs start, and the last. The catalog
# names the others too, as metadata: their managers would each cost a
# compile (their dependencies are not the operator's) for nothing.
INSTALLED_RELEASES = $(firstword $(subst =, ,$(firstword $(RELEASES)))) $(PREVIOUS_VERSION)
PREVIOUS_CATALOG = $(LOCALBIN)/catalog-v$(PREVIOUS_VERSION)
PREVIOUS_CATALOG_CACHE = $(LOCALBIN)/catalog-v$(PREVIOUS_VERSION)-cache
PREVIOUS_CATALOG_IMG = $(IMAGE_TAG_BASE)-catalog:v$(PREVIOUS_VERSION)
OLM_IMAGES_ENV = $(IMAGES_ENV) OLM_DIR=$(OLM_DIR) OLM_VERSION=$(OLM_VERSION) OPM=$(OPM) OPM_VERSION=$(OPM_VERSION) \
	GRPC_HEALTH_PROBE=$(GRPC_HEALTH_PROBE) CATALOG_DIR=catalog CATALOG_CACHE=$(CATALOG_CACHE) \
	RELEASES=bundles RELEASED_MANAGERS=$(RELEASED_MANAGERS) INSTALLED_RELEASES="$(INSTALLED_RELEASES)" PREVIOUS_VERSION=$(PREVIOUS_VERSION) \
	PREVIOUS_CATALOG_DIR=$(PREVIOUS_CATALOG) PREVIOUS_CATALOG_CACHE=$(PREVIOUS_CATALOG_CACHE)
OLM_ENV = KUBECONFIG=$(CLUSTER_KUBECONFIG) HELM=$(HELM) OLM_IMAGES_RECORD=$(OLM_IMAGES_RECORD) \
	OLM_MODULE_DIR=$$(cd hack/tools/olm && go list -m -f '{{.Dir}}' github.com/operator-framework/operator-lifecycle-manager) \
	STEER="$(CLUSTER) steer"

.PHONY: olm-images
olm-images: images olm grpc-health-probe opm released-managers $(PREVIOUS_CATALOG) ## Build OLM's and opm's images, the catalog image (and the last release's), every released bundle, and the managers of the releases the OLM suite installs (INSTALLED_RELEASES), and push them to the local registry.
	rm -rf $(CATALOG_CACHE) && $(OPM) serve catalog --cache-dir=$(CATALOG_CACHE) --cache-only
	rm -rf $(PREVIOUS_CATALOG_CACHE) && $(OPM) serve $(PREVIOUS_CATALOG) --cache-dir=$(PREVIOUS_CATALOG_CACHE) --cache-only
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

$(PREVIOUS_CATALOG):
	rm -rf $@ && mkdir -p $@
	git archive $(call release-commit,$(PREVIOUS_VERSION)) catalog | tar -x -C $@ --strip-components=1

.PHONY: released-managers
released-managers: $(foreach v,$(INSTALLED_RELEASES),$(RELEASED_MANAGERS)/$(v)/manager)
$(RELEASED_MANAGERS)/%/manager:
	@commit=$(call release-commit,$*); git cat-file -e "$$commit^{commit}" 2>/dev/null || \
		{ echo "release $*: commit '$$commit' is not in this clone (a shallow clone?)" >&2; exit 1; }
	rm -rf $(@D) && mkdir -p $(@D)
	$(BUILD_COST) hack/release-manager.sh $(call release-commit,$*) $@

# OLM's programs, as its image lays them out in /bin, stamped with its
# version as its release build does.
.PHONY: olm
olm: $(OLM_DIR) ## Build OLM v0's programs.
$(OLM_DIR): hack/tools/olm/go.mod | $(LOCALBIN)
	rm -rf $@.tmp && mkdir -p $@.tmp
	cd hack/tools/olm && $(BUILD_COST) go build \
		-ldflags "-s -w -X github.com/operator-framework/operator-lifecycle-manager/pkg/version.OLMVersion=$(OLM_VERSION:v%=%)" \
		-o $@.tmp/ $(foreach p,olm catalog package-server copy-content,github.com/operator-framework/operator-lifecycle-manager/cmd/$(p)) \
		github.com/operator-framework/operator-lifecycle-manager/util/cpb
	rm -rf $@ && mv $@.tmp $@

# OLM v1's programs, stamped with its version as its release build does.
.PHONY: olmv1
olmv1: $(OLMV1_DIR) ## Build OLM v1's programs (operator-controller, catalogd).
$(OLMV1_DIR): hack/tools/olmv1/go.mod | $(LOCALBIN)
	rm -rf $@.tmp && mkdir -p $@.tmp
	cd hack/tools/olmv1 && $(BUILD_COST) go build \
		-ldflags "-s -w -X github.com/operator-framework/operator-controller/internal/shared/version.version=$(OLMV1_VERSION)" \
		-o $@.tmp/ $(foreach p,operator-controller catalogd,github.com/operator-framework/operator-controller/cmd/$(p))
	rm -rf $@ && mv $@.tmp $@

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
	$(BUILD_COST_OF) $(LOCALBIN)/seed-scorecard $(GO) build -o $(LOCALBIN)/seed-scorecard ./scorecard
