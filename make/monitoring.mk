# Monitoring on the local cluster: prometheus-operator, running Prometheus
# on the real node, both built here, which scrapes the operator through the
# ServiceMonitor and evaluates the alerting rules the project ships.

##@ Monitoring

MONITORING_IMAGES_RECORD = $(LOCALBIN)/cluster/monitoring-images.json
# The pinned prometheus-operator module's source, downloaded if need be:
# its bundle and CRDs. A shell expansion, for recipes.
PROMETHEUS_OPERATOR_MODULE_DIR = $$(cd hack/tools/monitoring && go list -m -f '{{.Dir}}' github.com/prometheus-operator/prometheus-operator)
MONITORING_ENV = KUBECONFIG=$(CLUSTER_KUBECONFIG) KUSTOMIZE=$(KUSTOMIZE) MONITORING_IMAGES_RECORD=$(MONITORING_IMAGES_RECORD) \
	PROMETHEUS_OPERATOR_MODULE_DIR=$(PROMETHEUS_OPERATOR_MODULE_DIR) \
	STEER="env $(CLUSTER_ENV) $(CLUSTER) steer"

.PHONY: monitoring
monitoring: $(MONITORING_DIR) ## Build prometheus-operator and its config reloader.
# From a module of their own: prometheus-operator's admission package needs
# an older controller-runtime than kwok's in hack/tools/cluster. Its other
# libraries are at that module's versions, and built with its tags, so
# that the build reuses what the cluster's build compiled.
$(MONITORING_DIR): hack/tools/monitoring/go.mod hack/tools/monitoring/go.sum | $(LOCALBIN)
	rm -rf $@.tmp && mkdir -p $@.tmp
	cd hack/tools/monitoring && $(BUILD_COST) go build \
		-ldflags "-s -w -X github.com/prometheus/common/version.Version=$(PROMETHEUS_OPERATOR_VERSION:v%=%)" \
		-o $@.tmp/ $(foreach p,operator prometheus-config-reloader,github.com/prometheus-operator/prometheus-operator/cmd/$(p))
	rm -rf $@ && mv $@.tmp $@

.PHONY: monitoring-images
monitoring-images: cluster-up $(IMAGES) $(MONITORING_DIR) $(PROMETHEUS) ## Build prometheus-operator's and Prometheus' images and push them to the local registry.
	MONITORING_DIR=$(MONITORING_DIR) PROMETHEUS_OPERATOR_VERSION=$(PROMETHEUS_OPERATOR_VERSION) \
		PROMETHEUS=$(PROMETHEUS) PROMETHEUS_VERSION=$(PROMETHEUS_VERSION) \
		$(IMAGES) push --registry=$$($(CLUSTER_ENV) $(CLUSTER) registry) --record=$(MONITORING_IMAGES_RECORD) monitoring

.PHONY: monitoring-up
monitoring-up: monitoring-images kustomize ## Install prometheus-operator and a Prometheus that scrapes every ServiceMonitor and loads every PrometheusRule, on the local cluster's real node.
	$(MONITORING_ENV) hack/monitoring.sh up

.PHONY: monitoring-down
monitoring-down: kustomize ## Remove prometheus-operator, Prometheus and their CRDs from the local cluster.
	$(MONITORING_ENV) hack/monitoring.sh down
