# The images the local cluster runs (the operator's, its scorecard tests' and
# bundle's, the infrastructure's and the tests'), and hack/images' programs
# and the Debian packages they are made of.

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
	METRICS_SERVER=$(METRICS_SERVER) METRICS_SERVER_VERSION=$(METRICS_SERVER_VERSION) \
	CSI_DIR=$(CSI_DIR) CSI_VERSION=$(CSI_VERSION) \
	MANAGER=$(LOCALBIN)/manager SEED_SCORECARD=$(LOCALBIN)/seed-scorecard BUNDLE_DIR=bundle \
	SCORECARD_TEST=$(SCORECARD_TEST) OPERATOR_SDK_VERSION=$(OPERATOR_SDK_VERSION) \
	IMAGE_TAG_BASE=$(IMAGE_TAG_BASE) VERSION=$(VERSION)

.PHONY: images
images: cluster-up $(IMAGES) infra-inputs build seed-scorecard scorecard-test ## Build the operator's, the scorecard's, the bundle's and the test images, push them to the local registry, and write an SPDX SBOM of each with Go programs to bin/sbom.
	$(IMAGES_ENV) $(IMAGES) push --registry=$$($(CLUSTER_ENV) $(CLUSTER) registry) --record=$(IMAGES_RECORD) --sbom=$(SBOM_DIR) infra test operator

# What the infra images are made of: the pause and fetch programs, CoreDNS,
# the volume provisioner, metrics-server, the CSI driver and its sidecars,
# and Debian's packages.
.PHONY: demo-images
demo-images: cluster-up $(IMAGES) infra-inputs ## Build the images make demo's samples run (the cluster's and the test images, not the operator's), push them to the local registry, and write their SBOMs.
	$(IMAGES_ENV) $(IMAGES) push --registry=$$($(CLUSTER_ENV) $(CLUSTER) registry) --record=$(IMAGES_RECORD) --sbom=$(SBOM_DIR) infra test

.PHONY: infra-inputs
infra-inputs: $(LOCALBIN)/pause $(LOCALBIN)/fetch $(COREDNS) $(LOCAL_PATH_PROVISIONER) $(METRICS_SERVER) $(CSI_DIR) $(DEBS)

$(DEBS):
	hack/debian.sh download $@ $(DEBIAN_IMAGE_PACKAGES)

# hack/images: the image builder, and the two small programs of the images
# it makes (the pause program and a URL fetcher for test pods).
IMAGES_SOURCES = $(wildcard hack/images/*.go) hack/images/go.mod
$(IMAGES): $(IMAGES_SOURCES) | $(LOCALBIN)
	cd hack/images && $(BUILD_COST) go build -o $@ .
$(LOCALBIN)/pause: hack/images/pause/main.go | $(LOCALBIN)
	cd hack/images && $(BUILD_COST) go build -ldflags "-s -w" -o $@ ./pause
$(LOCALBIN)/fetch: hack/images/fetch/main.go | $(LOCALBIN)
	cd hack/images && $(BUILD_COST) go build -ldflags "-s -w" -o $@ ./fetch
