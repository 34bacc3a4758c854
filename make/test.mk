# The suites that run on the local cluster (end-to-end, chaos, fuzz, OLM),
# and the benchmark of the operator against raw client-go.

##@ Local cluster tests and benchmark

E2E_ENV = KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) MANAGER=$(LOCALBIN)/manager KUBECTL_SEED=$(LOCALBIN)/kubectl-seed HELM=$(HELM) VERSION=$(VERSION) \
	IMAGES_RECORD=$(IMAGES_RECORD) AUDIT_LOG=$(LOCALBIN)/cluster/logs/audit.log

# The end-to-end specs mostly wait on pods, so E2E_PROCS processes run them
# at once; the Serial ones (those that use the operator's replicas, the real
# node's CPU, or the cluster as a whole) run in the first, after the others.
E2E_PROCS ?= 3

.PHONY: e2e-prerequisites
e2e-prerequisites: cluster-up build plugin kustomize helm images monitoring-up ginkgo ## Start and build what the end-to-end suite needs, without running it.

.PHONY: test-e2e
test-e2e: e2e-prerequisites ## Run the end-to-end suite against the local cluster, with the operator as local processes, and Prometheus (make monitoring-up) scraping it where deployed, in E2E_PROCS processes. FOCUS=regexp runs the specs it matches.
	KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) hack/operator.sh install
	$(E2E_ENV) $(GINKGO) run --tags e2e --procs $(E2E_PROCS) --timeout 30m -v --fail-on-empty $(if $(FOCUS),--focus='$(FOCUS)') ./test/e2e

# The chaos specs share the end-to-end suite's operator processes, and
# build with the chaos tag only; they stop and start the cluster's
# components, so they get its configuration too.
# The random chaos spec kills replicas for CHAOS_DURATION (5m for the full
# form); CHAOS_SEED replays the run whose seed it printed.
CHAOS_DURATION ?= 60s
CHAOS_SEED ?=

.PHONY: test-chaos
test-chaos: cluster-up build kustomize helm images ## Kill the local cluster's kube-apiserver, then etcd, for 20 s each, restart the real node's kubelet and containerd, cut the leader off the API server for 30 s, throttle the operator with 429s, raise etcd's NOSPACE alarm for 30 s, edit its objects and their owners' spec from other clients for 30 s, and kill random replicas for CHAOS_DURATION under the operator's replicas while they reconcile every kind, and print how they ride it out and converge. FOCUS=regexp runs the specs it matches.
	KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) hack/operator.sh install
	$(E2E_ENV) $(CLUSTER_ENV) CLUSTER_DIR=$(LOCALBIN)/cluster CHAOS_DURATION=$(CHAOS_DURATION) CHAOS_SEED=$(CHAOS_SEED) \
		$(GO) test -tags e2e,chaos ./test/e2e -timeout 30m -v -ginkgo.v -ginkgo.fail-on-empty -ginkgo.label-filter=chaos $(if $(FOCUS),-ginkgo.focus='$(FOCUS)')

# Fuzzing: each fuzz target of the controllers runs for FUZZTIME, and what
# the builders make from every spec the CRDs admit is checked against the
# local cluster's API server, which outlives the fuzzer's workers (make
# test runs only the corpora, against envtest). A crasher lands in the
# package's testdata/fuzz, to commit as a regression seed.
FUZZTIME ?= 60s

.PHONY: fuzz
fuzz: cluster-up kustomize ## Fuzz every builder and status function for FUZZTIME each (default 60s), against the local cluster's API server.
	KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) hack/operator.sh install
	FUZZ_KUBECONFIG=$(CLUSTER_KUBECONFIG) FUZZTIME=$(FUZZTIME) GO=$(GO) hack/fuzz.sh run

# The instrumented builds are most of a short fuzz run's time: CI makes them
# while the OLM suite waits on OLM.
.PHONY: fuzz-build
fuzz-build: ## Compile the fuzz targets' instrumented test programs into the build cache, so that make fuzz starts fuzzing at once.
	GO=$(GO) hack/fuzz.sh build

# The OLM suite: OLM v0 and OLM v1 in the cluster install, upgrade and
# remove the operator from the catalog image, whose pods run on the real
# node. The upgrade under load makes OLM_LOAD resources of each kind (60 for
# the full form).
OLM_LOAD ?= 20

.PHONY: test-olm
test-olm: olm-up olmv1-up operator-sdk ## Run the OLM suite against the local cluster: every install mode, upgrades, uninstall, operator-sdk run bundle and scorecard, the package as OperatorHub shows it, and OLM v1. FOCUS=regexp runs the specs it matches.
	KUBECONFIG=$(CLUSTER_KUBECONFIG) VERSION=$(VERSION) CATALOG_IMG=$(CATALOG_IMG) OPERATOR_SDK=$(OPERATOR_SDK) \
		PREVIOUS_VERSION=$(PREVIOUS_VERSION) PREVIOUS_CATALOG_IMG=$(PREVIOUS_CATALOG_IMG) OLM_LOAD=$(OLM_LOAD) \
		REGISTRY_TLS=$$($(CLUSTER_ENV) $(CLUSTER) registry-tls) CLUSTER_CA=$(CLUSTER_CA) \
		IMAGES_RECORD=$(IMAGES_RECORD) OLM_IMAGES_RECORD=$(OLM_IMAGES_RECORD) AUDIT_LOG=$(LOCALBIN)/cluster/logs/audit.log \
		PROMETHEUS_OPERATOR_CRDS=$(PROMETHEUS_OPERATOR_MODULE_DIR)/example/prometheus-operator-crd \
		$(GO) test -tags olm ./test/olm -timeout 40m -v -ginkgo.v -ginkgo.fail-on-empty $(if $(FOCUS),-ginkgo.focus='$(FOCUS)')

# The benchmark's sizes: BENCH_N=100,1000,5000 where the machine has room.
BENCH_N ?= 100,1000
BENCH_IDLE ?= 60s
BENCH_KINDS ?= WebServer,Echo,ImmortalContainer,DemoVolume
# BENCH_REPEAT=3 runs each size three times and prints each figure's median
# and spread, as the figures docs/performance.md quotes are taken.
BENCH_REPEAT ?= 1

.PHONY: bench
bench: cluster-up build kustomize ## Measure the operator against raw client-go on the kwok nodes (BENCH_N, BENCH_KINDS, BENCH_IDLE, BENCH_REPEAT, BENCH_FLAGS for the operator, BENCH_MEMORY_LIMIT for its container's, BENCH_OUT, BENCH_ALLOW_BUSY, BENCH_PROFILE): a table, and JSON (default in bin/bench).
	KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) MANAGER=$(LOCALBIN)/manager KWOK_VERSION=$(KWOK_VERSION) \
		$(GO) run ./test/bench -cluster $(LOCALBIN)/cluster -n $(BENCH_N) -kinds $(BENCH_KINDS) -idle $(BENCH_IDLE) -repeat $(BENCH_REPEAT) \
		$(if $(BENCH_MEMORY_LIMIT),-memory-limit $(BENCH_MEMORY_LIMIT)) $(if $(BENCH_OUT),-out $(BENCH_OUT)) \
		$(if $(filter true,$(BENCH_ALLOW_BUSY)),-allow-busy) $(if $(filter false,$(BENCH_PROFILE)),-profile=false) -- $(BENCH_FLAGS)

.PHONY: bench-compare
bench-compare: ## Print the ratios of two benchmark runs: OLD=a.json NEW=b.json.
	$(GO) run ./test/bench compare $(OLD) $(NEW)
