package v1alpha1_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
	"github.com/seed-operators/seed-operator/internal/testenv"
)

// minimal is the smallest valid spec of each kind, with the name its
// objects get unless an entry gives another; an entry's spec is laid over it.
var minimal = map[string]struct{ name, spec string }{
	"Echo":              {name: "hello", spec: `{message: Hello}`},
	"ScheduledEcho":     {name: "tick", spec: `{message: Hello, schedule: "*/5 * * * *"}`},
	"WebServer":         {name: "web", spec: `{}`},
	"ImmortalContainer": {name: "app", spec: `{image: "app:1"}`},
	"DemoVolume":        {name: "data", spec: `{name: Data, size: 1}`},
}

// object is a custom resource of kind named name (or the kind's usual
// name), whose spec is the kind's minimal spec with the fields of spec, a
// YAML map, laid over it: a field set to null is left out.
func object(kind, name, spec string) *unstructured.Unstructured {
	GinkgoHelper()
	base := minimal[kind]
	Expect(base.spec).NotTo(BeEmpty(), "no minimal spec for kind %q", kind)
	if name == "" {
		name = base.name
	}
	fields := map[string]any{}
	Expect(yaml.Unmarshal([]byte(base.spec), &fields)).To(Succeed())
	over := map[string]any{}
	Expect(yaml.Unmarshal([]byte(spec), &over)).To(Succeed())
	for field, value := range over {
		if value == nil {
			delete(fields, field)
			continue
		}
		fields[field] = value
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": fields}}
	u.SetAPIVersion(seedv1alpha1.GroupVersion.String())
	u.SetKind(kind)
	u.SetName(name)
	u.SetNamespace(namespace)
	return u
}

// refused is an entry of the invalid-spec table: an object of kind, named
// name (or its usual name), with spec laid over its minimal spec, which the
// API server refuses with message.
func refused(kind, what, name, spec, message string) TableEntry {
	return Entry(fmt.Sprintf("%s: %s", kind, what), kind, name, spec, message)
}

// quantityPattern is how the API server names the pattern of a resource
// quantity in its message.
const quantityPattern = `should match '^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$'`

var _ = Describe("The API server, with the CRDs", func() {
	DescribeTable("refuses an invalid custom resource with a clear message, and stores nothing",
		func(ctx SpecContext, kind, name, spec, message string) {
			u := object(kind, name, spec)
			err := k8sClient.Create(ctx, u)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "an Invalid answer, not %v", err)
			Expect(err).To(MatchError(ContainSubstring(message)))

			err = k8sClient.Get(ctx, client.ObjectKeyFromObject(u), u.DeepCopy())
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%v", err)
		},

		refused("Echo", "no message", "", `{message: null}`, "spec.message: Required value"),
		refused("Echo", "an empty message", "", `{message: ""}`, "spec.message in body should be at least 1 chars long"),
		refused("Echo", "a message too long", "", fmt.Sprintf(`{message: %s}`, strings.Repeat("x", 4097)),
			"spec.message: Too long: may not be more than 4096"),
		refused("Echo", "a message that is not a string", "", `{message: 42}`, `spec.message: Invalid value: "integer": spec.message in body must be of type string`),
		refused("Echo", "a message with a DEL, which server-side apply cannot carry", "", `{message: "beep\x7f"}`,
			"message must not contain the control characters U+007F to U+009F"),
		refused("Echo", "an image with a control character", "", `{image: "busybox\x7f"}`,
			"image must not contain whitespace or control characters"),
		refused("Echo", "an empty image", "", `{image: ""}`, "spec.image in body should be at least 1 chars long"),
		refused("Echo", "an image with a space", "", `{image: busybox latest}`, "image must not contain whitespace"),
		refused("Echo", "an image with a tab", "", `{image: "busybox\t"}`, "image must not contain whitespace"),
		refused("Echo", "an image ending in a vertical tab", "", `{image: "busybox\v"}`, "image must not contain whitespace"),
		refused("Echo", "an image too long", "", fmt.Sprintf(`{image: %s}`, strings.Repeat("i", 513)), "spec.image: Too long: may not be more than 512"),
		refused("Echo", "too many retries", "", `{backoffLimit: 11}`, "spec.backoffLimit in body should be less than or equal to 10"),
		refused("Echo", "negative retries", "", `{backoffLimit: -1}`, "spec.backoffLimit in body should be greater than or equal to 0"),
		refused("Echo", "a negative TTL", "", `{ttlSecondsAfterFinished: -1}`, "spec.ttlSecondsAfterFinished in body should be greater than or equal to 0"),
		refused("Echo", "a TTL beyond a year", "", `{ttlSecondsAfterFinished: 31536001}`,
			"spec.ttlSecondsAfterFinished in body should be less than or equal to 31536000"),
		refused("Echo", "a name too long for the Job's pod label", strings.Repeat("e", 64), `{}`,
			"name must be at most 63 characters, as the Job's pods carry it in a label"),

		refused("ScheduledEcho", "no schedule", "", `{schedule: null}`, "spec.schedule: Required value"),
		refused("ScheduledEcho", "no message", "", `{message: null}`, "spec.message: Required value"),
		refused("ScheduledEcho", "an empty message", "", `{message: ""}`, "spec.message in body should be at least 1 chars long"),
		refused("ScheduledEcho", "a message too long", "", fmt.Sprintf(`{message: %s}`, strings.Repeat("x", 4097)),
			"spec.message: Too long: may not be more than 4096"),
		refused("ScheduledEcho", "a message with a C1 control character", "", `{message: "a\u009b"}`,
			"message must not contain the control characters U+007F to U+009F"),
		refused("ScheduledEcho", "a schedule too long", "", fmt.Sprintf(`{schedule: "%s"}`, strings.Repeat("1,", 64)+"1 * * * *"),
			"spec.schedule: Too long: may not be more than 128"),
		refused("ScheduledEcho", "six cron fields", "", `{schedule: "0 */5 * * * *"}`, "schedule must be five cron fields"),
		refused("ScheduledEcho", "four cron fields", "", `{schedule: "* * * *"}`, "schedule must be five cron fields"),
		refused("ScheduledEcho", "a time zone in the schedule", "", `{schedule: "TZ=UTC 0 * * * *"}`,
			"with no TZ or CRON_TZ prefix: a ScheduledEcho sets its time zone with timeZone"),
		refused("ScheduledEcho", "minute 60", "", `{schedule: "60 * * * *"}`, "minutes are 0-59"),
		refused("ScheduledEcho", "hour 24", "", `{schedule: "0 24 * * *"}`, "hours 0-23"),
		refused("ScheduledEcho", "day of the month 32", "", `{schedule: "0 0 32 * *"}`, "days of the month 1-31"),
		refused("ScheduledEcho", "month 13", "", `{schedule: "0 0 1 13 *"}`, "months 1-12 or JAN-DEC"),
		refused("ScheduledEcho", "an unknown day of the week", "", `{schedule: "0 0 * * funday"}`, "days of the week 0-6"),
		refused("ScheduledEcho", "a step of zero", "", `{schedule: "*/0 * * * *"}`, "with an optional step such as */15"),
		refused("ScheduledEcho", "an unknown macro", "", `{schedule: "@fortnightly"}`, "schedule must be five cron fields"),
		// Stricter than the CronJob API, whose parser takes "1,,2" for "1,2":
		// such a schedule is more likely a typo than a wish.
		refused("ScheduledEcho", "an empty item in a list", "", `{schedule: "1,,2 * * * *"}`, "a comma-separated list"),
		refused("ScheduledEcho", "an unknown concurrency policy", "", `{concurrencyPolicy: Sometimes}`,
			`spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"`),
		refused("ScheduledEcho", "a negative failed-jobs history", "", `{failedJobsHistoryLimit: -1}`,
			"spec.failedJobsHistoryLimit in body should be greater than or equal to 0"),
		refused("ScheduledEcho", "a failed-jobs history beyond 100", "", `{failedJobsHistoryLimit: 101}`,
			"spec.failedJobsHistoryLimit in body should be less than or equal to 100"),
		refused("ScheduledEcho", "a successful-jobs history beyond 100", "", `{successfulJobsHistoryLimit: 101}`,
			"spec.successfulJobsHistoryLimit in body should be less than or equal to 100"),
		refused("ScheduledEcho", "a zero starting deadline", "", `{startingDeadlineSeconds: 0}`,
			"spec.startingDeadlineSeconds in body should be greater than or equal to 1"),
		refused("ScheduledEcho", "a time zone with a space", "", `{timeZone: Europe/Paris now}`, "spec.timeZone in body should match"),
		refused("ScheduledEcho", "a time zone that starts with a slash", "", `{timeZone: /etc/passwd}`, "spec.timeZone in body should match"),
		refused("ScheduledEcho", "a time zone too long", "", fmt.Sprintf(`{timeZone: %s}`, strings.Repeat("Z", 65)),
			"spec.timeZone: Too long: may not be more than 64"),
		refused("ScheduledEcho", "an image with a newline", "", `{image: "busybox\n"}`, "image must not contain whitespace"),
		refused("ScheduledEcho", "suspend that is not a boolean", "", `{suspend: "yes"}`, `spec.suspend in body must be of type boolean`),
		refused("ScheduledEcho", "a name too long for the CronJob's Jobs", strings.Repeat("s", 53), `{}`, "name must be at most 52 characters"),

		refused("WebServer", "negative replicas", "", `{replicas: -1}`,
			"spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"),
		refused("WebServer", "too many replicas", "", `{replicas: 101}`, "spec.replicas in body should be less than or equal to 100"),
		refused("WebServer", "replicas in words", "", `{replicas: three}`, `spec.replicas in body must be of type integer`),
		refused("WebServer", "an empty image", "", `{image: ""}`, "spec.image in body should be at least 1 chars long"),
		refused("WebServer", "a blank image", "", `{image: " "}`, "image must not contain whitespace"),
		refused("WebServer", "an image with a space", "", `{image: nginx latest}`, "image must not contain whitespace"),
		refused("WebServer", "an image with a no-break space", "", `{image: "nginx\u00a0"}`, "image must not contain whitespace"),
		refused("WebServer", "an image too long", "", fmt.Sprintf(`{image: %s}`, strings.Repeat("i", 513)), "spec.image: Too long: may not be more than 512"),
		refused("WebServer", "port zero", "", `{port: 0}`, "spec.port in body should be greater than or equal to 1"),
		refused("WebServer", "a port out of range", "", `{port: 70000}`, "spec.port in body should be less than or equal to 65535"),
		refused("WebServer", "container port zero", "", `{containerPort: 0}`, "spec.containerPort in body should be greater than or equal to 1"),
		refused("WebServer", "a container port out of range", "", `{containerPort: 65536}`,
			"spec.containerPort in body should be less than or equal to 65535"),
		refused("WebServer", "an unknown service type", "", `{serviceType: ExternalName}`,
			`spec.serviceType: Unsupported value: "ExternalName": supported values: "ClusterIP", "NodePort", "LoadBalancer"`),
		refused("WebServer", "a node port below the node port range", "", `{serviceType: NodePort, nodePort: 8080}`,
			"spec.nodePort in body should be greater than or equal to 30000"),
		refused("WebServer", "a node port above the node port range", "", `{serviceType: NodePort, nodePort: 32768}`,
			"spec.nodePort in body should be less than or equal to 32767"),
		refused("WebServer", "a node port on a ClusterIP service", "", `{nodePort: 30080}`,
			"nodePort can only be set when serviceType is NodePort or LoadBalancer"),
		refused("WebServer", "a CPU request above its limit", "", `{resources: {requests: {cpu: "2"}, limits: {cpu: 1}}}`,
			"a request of cpu, memory or ephemeral-storage must not exceed its limit"),
		refused("WebServer", "a memory request above its limit", "", `{resources: {requests: {memory: 1Gi}, limits: {memory: 512Mi}}}`,
			"a request of cpu, memory or ephemeral-storage must not exceed its limit"),
		refused("WebServer", "a quantity that is not one", "", `{resources: {limits: {cpu: lots}}}`, "spec.resources.limits.cpu in body "+quantityPattern),
		refused("WebServer", "no time for a rollout", "", `{rollout: {progressDeadlineSeconds: 0}}`,
			"spec.rollout.progressDeadlineSeconds in body should be greater than or equal to 1"),
		refused("WebServer", "a rollout deadline past an hour", "", `{rollout: {progressDeadlineSeconds: 3601}}`,
			"spec.rollout.progressDeadlineSeconds in body should be less than or equal to 3600"),
		refused("WebServer", "an automatic rollback in words", "", `{rollout: {autoRollback: "no"}}`,
			"spec.rollout.autoRollback in body must be of type boolean"),
		refused("WebServer", "autoscaling without a CPU request", "", `{autoscaling: {maxReplicas: 4}}`,
			"autoscaling needs a CPU request in resources.requests"),
		refused("WebServer", "autoscaling on a memory request only", "", `{resources: {requests: {memory: 64Mi}}, autoscaling: {maxReplicas: 4}}`,
			"autoscaling needs a CPU request in resources.requests"),
		refused("WebServer", "autoscaling without a maximum", "", `{resources: {requests: {cpu: 10m}}, autoscaling: {minReplicas: 2}}`,
			"spec.autoscaling.maxReplicas: Required value"),
		refused("WebServer", "a minimum above the maximum", "", `{resources: {requests: {cpu: 10m}}, autoscaling: {minReplicas: 5, maxReplicas: 4}}`,
			"minReplicas must not exceed maxReplicas"),
		refused("WebServer", "a minimum of zero", "", `{resources: {requests: {cpu: 10m}}, autoscaling: {minReplicas: 0, maxReplicas: 4}}`,
			"spec.autoscaling.minReplicas in body should be greater than or equal to 1"),
		refused("WebServer", "a maximum above what replicas allows", "", `{resources: {requests: {cpu: 10m}}, autoscaling: {maxReplicas: 101}}`,
			"spec.autoscaling.maxReplicas in body should be less than or equal to 100"),
		refused("WebServer", "a CPU target of zero", "", `{resources: {requests: {cpu: 10m}}, autoscaling: {maxReplicas: 4, targetCPUUtilizationPercentage: 0}}`,
			"spec.autoscaling.targetCPUUtilizationPercentage in body should be greater than or equal to 1"),
		refused("WebServer", "a CPU target above 100", "", `{resources: {requests: {cpu: 10m}}, autoscaling: {maxReplicas: 4, targetCPUUtilizationPercentage: 101}}`,
			"spec.autoscaling.targetCPUUtilizationPercentage in body should be less than or equal to 100"),
		refused("WebServer", "a scale-down policy of an unknown type", "",
			`{resources: {requests: {cpu: 10m}}, autoscaling: {maxReplicas: 4, behavior: {scaleDown: {policies: [{type: Replicas, value: 1, periodSeconds: 15}]}}}}`,
			`spec.autoscaling.behavior.scaleDown.policies[0].type: Unsupported value: "Replicas"`),
		refused("WebServer", "a scale-up policy of no pods", "",
			`{resources: {requests: {cpu: 10m}}, autoscaling: {maxReplicas: 4, behavior: {scaleUp: {policies: [{type: Pods, value: 0, periodSeconds: 15}]}}}}`,
			"spec.autoscaling.behavior.scaleUp.policies[0].value in body should be greater than or equal to 1"),
		refused("WebServer", "a policy period past 30 minutes", "",
			`{resources: {requests: {cpu: 10m}}, autoscaling: {maxReplicas: 4, behavior: {scaleDown: {policies: [{type: Percent, value: 50, periodSeconds: 1801}]}}}}`,
			"spec.autoscaling.behavior.scaleDown.policies[0].periodSeconds in body should be less than or equal to 1800"),
		refused("WebServer", "a stabilization window past an hour", "",
			`{resources: {requests: {cpu: 10m}}, autoscaling: {maxReplicas: 4, behavior: {scaleDown: {stabilizationWindowSeconds: 3601}}}}`,
			"spec.autoscaling.behavior.scaleDown.stabilizationWindowSeconds in body should be less than or equal to 3600"),
		refused("WebServer", "an unknown select policy", "",
			`{resources: {requests: {cpu: 10m}}, autoscaling: {maxReplicas: 4, behavior: {scaleUp: {selectPolicy: Most}}}}`,
			`spec.autoscaling.behavior.scaleUp.selectPolicy: Unsupported value: "Most"`),
		refused("WebServer", "a name too long for its Service", strings.Repeat("w", 56), `{}`,
			"name must be at most 55 characters, so that the Service <name>-service fits in 63"),
		refused("WebServer", "a name that starts with a digit", "1web", `{}`, "name must start with a letter"),
		refused("WebServer", "a name with a dot", "web.example", `{}`,
			"name must start with a letter and contain only lowercase letters, digits and '-'"),

		refused("ImmortalContainer", "no image", "", `{image: null}`, "spec.image: Required value"),
		refused("ImmortalContainer", "an empty image", "", `{image: ""}`, "spec.image in body should be at least 1 chars long"),
		refused("ImmortalContainer", "an image with a space", "", `{image: app latest}`, "image must not contain whitespace"),
		refused("ImmortalContainer", "an image with a newline", "", `{image: "app:1\n"}`, "image must not contain whitespace"),
		refused("ImmortalContainer", "a command with a DEL", "", `{command: ["sh\x7f"]}`, "spec.command[0] in body should match"),
		refused("ImmortalContainer", "an argument with a C1 control character", "", `{args: ["a\u0080"]}`, "spec.args[0] in body should match"),
		refused("ImmortalContainer", "a variable's value with U+FFFF", "", `{env: [{name: A, value: "a\uffff"}]}`,
			"spec.env[0].value in body should match"),
		refused("ImmortalContainer", "an image too long", "", fmt.Sprintf(`{image: %s}`, strings.Repeat("a", 513)),
			"spec.image: Too long: may not be more than 512"),
		refused("ImmortalContainer", "running as root", "", `{runAsUser: 0}`, "spec.runAsUser in body should be greater than or equal to 1"),
		refused("ImmortalContainer", "a negative user", "", `{runAsUser: -1}`, "spec.runAsUser in body should be greater than or equal to 1"),
		refused("ImmortalContainer", "a user beyond the range of user IDs", "", `{runAsUser: 2147483648}`,
			"spec.runAsUser in body should be less than or equal to 2147483647"),
		refused("ImmortalContainer", "a command that is not a list", "", `{command: "/app --serve"}`, "spec.command in body must be of type array"),
		refused("ImmortalContainer", "too many command items", "", fmt.Sprintf(`{command: [%s]}`, strings.Repeat(`a,`, 64)+"a"),
			"spec.command: Too many: 65: must have at most 64 items"),
		refused("ImmortalContainer", "too many args", "", fmt.Sprintf(`{args: [%s]}`, strings.Repeat(`a,`, 256)+"a"),
			"spec.args: Too many: 257: must have at most 256 items"),
		refused("ImmortalContainer", "an environment variable set twice", "", `{env: [{name: A, value: "1"}, {name: A, value: "2"}]}`,
			"spec.env[1]: Duplicate value"),
		refused("ImmortalContainer", "an environment variable without a name", "", `{env: [{value: "1"}]}`, "spec.env[0].name: Required value"),
		// Found by FuzzDesiredPod: the Pod API refuses such names.
		refused("ImmortalContainer", "an environment variable name with a newline", "", `{env: [{name: "\n", value: "1"}]}`,
			`spec.env[0].name in body should match '^[ -<>-~]+$'`),
		refused("ImmortalContainer", "an environment variable name with '='", "", `{env: [{name: "A=B", value: "1"}]}`,
			`spec.env[0].name in body should match '^[ -<>-~]+$'`),
		refused("ImmortalContainer", "too many environment variables", "", `{env: [`+envVars(129)+`]}`,
			"spec.env: Too many: 129: must have at most 128 items"),
		refused("ImmortalContainer", "a CPU request above its limit", "", `{resources: {requests: {cpu: 500m}, limits: {cpu: 250m}}}`,
			"a request of cpu, memory or ephemeral-storage must not exceed its limit"),
		refused("ImmortalContainer", "a quantity that is not one", "", `{resources: {requests: {memory: "64 MB"}}}`,
			"spec.resources.requests.memory in body "+quantityPattern),
		refused("ImmortalContainer", "a name too long for the pod's label", strings.Repeat("a", 64), `{}`,
			"name must be at most 63 characters, as its pod carries it in a label"),

		refused("DemoVolume", "no name", "", `{name: null}`, "spec.name: Required value"),
		refused("DemoVolume", "no size", "", `{size: null}`, "spec.size: Required value"),
		refused("DemoVolume", "size 0", "", `{size: 0}`, "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1"),
		refused("DemoVolume", "a negative size", "", `{size: -1}`, "spec.size in body should be greater than or equal to 1"),
		refused("DemoVolume", "a size beyond 64 TiB", "", `{size: 65537}`, "spec.size in body should be less than or equal to 65536"),
		refused("DemoVolume", "a size with a unit", "", `{size: 1Gi}`, "spec.size in body must be of type integer"),
		refused("DemoVolume", "an empty name", "", `{name: ""}`, "spec.name in body should be at least 1 chars long"),
		refused("DemoVolume", "a name too long", "", fmt.Sprintf(`{name: %s}`, strings.Repeat("n", 254)), "spec.name: Too long: may not be more than 253"),
		refused("DemoVolume", "an unknown access mode", "", `{accessModes: [ReadWriteSometimes]}`,
			`spec.accessModes[0]: Unsupported value: "ReadWriteSometimes"`),
		refused("DemoVolume", "an access mode given twice", "", `{accessModes: [ReadWriteOnce, ReadWriteOnce]}`,
			`spec.accessModes[1]: Duplicate value: "ReadWriteOnce"`),
		refused("DemoVolume", "more access modes than there are", "",
			`{accessModes: [ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod, ReadWriteOnce]}`,
			"spec.accessModes: Too many: 5: must have at most 4 items"),
		refused("DemoVolume", "no backup kept", "", `{backup: {keep: 0}}`, "spec.backup.keep in body should be greater than or equal to 1"),
		refused("DemoVolume", "a backup schedule of six fields", "", `{backup: {schedule: "0 0 3 * * *"}}`, "schedule must be five cron fields"),
		refused("DemoVolume", "a backup to restore with no name", "", `{restoreFrom: {}}`, "spec.restoreFrom.backupName: Required value"),
		refused("DemoVolume", "autoGrow without maxSize", "", `{autoGrow: {}}`, "spec.autoGrow.maxSize: Required value"),
		refused("DemoVolume", "autoGrow's maxSize below size", "", `{size: 5, autoGrow: {maxSize: 4}}`, "autoGrow.maxSize must be at least size"),
		refused("DemoVolume", "autoGrow's threshold at 40%", "", `{autoGrow: {maxSize: 2, thresholdPercent: 40}}`,
			"spec.autoGrow.thresholdPercent in body should be greater than or equal to 50"),
		refused("DemoVolume", "autoGrow's step of 0 GiB", "", `{autoGrow: {maxSize: 2, step: 0}}`, "step must be a whole number of GiB from 1 to 1024"),
		refused("DemoVolume", "autoGrow's step of 0%", "", `{autoGrow: {maxSize: 2, step: "0%"}}`, "or a percentage from 1% to 100%"),
		refused("DemoVolume", "autoGrow's step in GiB as a string", "", `{autoGrow: {maxSize: 2, step: "2Gi"}}`, "or a percentage from 1% to 100%"),
		refused("DemoVolume", "an unknown reclaim policy", "", `{reclaimPolicy: Recycle}`,
			`spec.reclaimPolicy: Unsupported value: "Recycle": supported values: "Retain", "Delete"`),
		refused("DemoVolume", "a storage class name in capitals", "", `{storageClassName: Fast_SSD}`, "spec.storageClassName in body should match"),
		refused("DemoVolume", "an empty storage class name", "", `{storageClassName: ""}`,
			"spec.storageClassName in body should be at least 1 chars long"),
		refused("DemoVolume", "a storage class name too long", "", fmt.Sprintf(`{storageClassName: %s}`, strings.Repeat("s", 254)),
			"spec.storageClassName: Too long: may not be more than 253"),
		refused("DemoVolume", "a name too long for the claim's label", strings.Repeat("d", 64), `{}`,
			"name must be at most 63 characters, as its claim carries it in a label"),
	)

	DescribeTable("refuses an invalid change with a clear message, and keeps the object as it was",
		func(ctx SpecContext, kind, spec, change, message string) {
			u := object(kind, "", spec)
			Expect(k8sClient.Create(ctx, u)).To(Succeed())
			before := u.DeepCopy()

			err := k8sClient.Patch(ctx, u, client.RawPatch(types.MergePatchType, []byte(change)))
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "an Invalid answer, not %v", err)
			Expect(err).To(MatchError(ContainSubstring(message)))

			after := before.DeepCopy()
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(u), after)).To(Succeed())
			Expect(after.Object["spec"]).To(Equal(before.Object["spec"]))
			Expect(after.GetGeneration()).To(Equal(before.GetGeneration()))
		},
		Entry("Echo: a new message", "Echo", `{}`, `{"spec":{"message":"Bye"}}`, "spec is immutable: an Echo runs once"),
		Entry("Echo: a new image", "Echo", `{}`, `{"spec":{"image":"busybox:2"}}`, "spec is immutable: an Echo runs once"),
		Entry("DemoVolume: a smaller size", "DemoVolume", `{size: 2}`, `{"spec":{"size":1}}`, "size cannot shrink"),
		Entry("DemoVolume: another storage class", "DemoVolume", `{storageClassName: fast}`, `{"spec":{"storageClassName":"slow"}}`,
			"storageClassName is immutable"),
		Entry("DemoVolume: a storage class added", "DemoVolume", `{}`, `{"spec":{"storageClassName":"fast"}}`, "storageClassName is immutable"),
		Entry("DemoVolume: a storage class removed", "DemoVolume", `{storageClassName: fast}`, `{"spec":{"storageClassName":null}}`,
			"storageClassName is immutable"),
		Entry("DemoVolume: another backup to restore", "DemoVolume", `{restoreFrom: {backupName: a}}`, `{"spec":{"restoreFrom":{"backupName":"b"}}}`,
			"restoreFrom is immutable"),
		Entry("DemoVolume: a backup to restore added", "DemoVolume", `{}`, `{"spec":{"restoreFrom":{"backupName":"b"}}}`, "restoreFrom is immutable"),
		Entry("DemoVolume: other access modes", "DemoVolume", `{accessModes: [ReadWriteOnce]}`, `{"spec":{"accessModes":["ReadWriteMany"]}}`,
			"accessModes are immutable"),
		Entry("WebServer: an unknown service type", "WebServer", `{}`, `{"spec":{"serviceType":"Headless"}}`,
			`spec.serviceType: Unsupported value: "Headless"`),
		Entry("WebServer: a limit below the request", "WebServer", `{resources: {requests: {cpu: 100m}, limits: {cpu: 200m}}}`,
			`{"spec":{"resources":{"limits":{"cpu":"50m"}}}}`, "a request of cpu, memory or ephemeral-storage must not exceed its limit"),
	)
})

// envVars is a YAML list body of n environment variables with distinct names.
func envVars(n int) string {
	vars := make([]string, n)
	for i := range vars {
		vars[i] = fmt.Sprintf("{name: V%d, value: x}", i)
	}
	return strings.Join(vars, ", ")
}

// hostile is text that a shell, a template or Kubernetes' own $(VAR)
// expansion would change, with characters from beyond ASCII.
const hostile = "$(HOME) ${PATH} `id`; rm -rf / && echo \"quoted\" 'single' | tee >/dev/null \\ 100% ✓ 日本語 émoji 🚀"

var _ = Describe("The API server, with the CRDs", func() {
	DescribeTable("stores values at the limits and hostile text exactly as given",
		func(ctx SpecContext, kind, name, spec string) {
			u := object(kind, name, spec)
			sent := u.DeepCopy()
			Expect(k8sClient.Create(ctx, u)).To(Succeed())

			got := sent.DeepCopy()
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(u), got)).To(Succeed())
			stored := got.Object["spec"].(map[string]any)
			for field, value := range sent.Object["spec"].(map[string]any) {
				Expect(stored).To(HaveKey(field))
				// As JSON, since YAML's numbers are floats and the API server's integers.
				Expect(json.Marshal(stored[field])).To(MatchJSON(must(json.Marshal(value))), "spec.%s", field)
			}
		},
		Entry("Echo: the longest message, in characters beyond ASCII", "Echo", "",
			fmt.Sprintf(`{message: %s}`, strings.Repeat("é", 4096))),
		Entry("Echo: a hostile message", "Echo", "", fmt.Sprintf(`{message: %q}`, hostile)),
		Entry("Echo: a message with the control characters server-side apply carries", "Echo", "",
			`{message: "tab\tnewline\nnext line\u0085end"}`),
		Entry("Echo: the longest name and image", "Echo", strings.Repeat("e", 63),
			fmt.Sprintf(`{image: %s}`, strings.Repeat("i", 512))),
		Entry("ScheduledEcho: the longest name and message, hostile", "ScheduledEcho", strings.Repeat("s", 52),
			fmt.Sprintf(`{message: %q}`, hostile+strings.Repeat("x", 4096-len([]rune(hostile))))),
		Entry("WebServer: the longest name", "WebServer", strings.Repeat("w", 55), `{}`),
		Entry("WebServer: requests equal to their limits", "WebServer", "",
			`{resources: {requests: {cpu: 500m, memory: 64Mi}, limits: {cpu: "0.5", memory: 64Mi}}}`),
		Entry("WebServer: autoscaling at its bounds, with behavior", "WebServer", "",
			`{resources: {requests: {cpu: 10m}}, autoscaling: {minReplicas: 100, maxReplicas: 100, targetCPUUtilizationPercentage: 100, `+
				`behavior: {scaleUp: {stabilizationWindowSeconds: 0}, scaleDown: {stabilizationWindowSeconds: 15, policies: [{type: Pods, value: 1, periodSeconds: 15}]}}}}`),
		Entry("ImmortalContainer: hostile command, args and environment", "ImmortalContainer", strings.Repeat("a", 63),
			fmt.Sprintf(`{command: [sh, -c, %q], args: [%q, "$$(HOME)"], env: [{name: GREETING, value: %q}]}`, hostile, hostile, hostile)),
		Entry("ImmortalContainer: the most command items, args and variables", "ImmortalContainer", "",
			fmt.Sprintf(`{command: [%s], args: [%s], env: [%s]}`,
				strings.TrimSuffix(strings.Repeat("a,", 64), ","), strings.TrimSuffix(strings.Repeat("a,", 256), ","), envVars(128))),
		Entry("DemoVolume: the longest names and the largest size", "DemoVolume", strings.Repeat("d", 63),
			fmt.Sprintf(`{name: %q, size: 65536, storageClassName: %s}`, hostile+strings.Repeat("n", 253-len([]rune(hostile))), strings.Repeat("s", 253))),
	)

	It("explains every field of every kind through kubectl explain, with its description", func(ctx SpecContext) {
		kubeconfig, err := env.WriteKubeconfig(GinkgoT().TempDir())
		Expect(err).NotTo(HaveOccurred())
		crds, err := filepath.Glob(filepath.Join(testenv.ProjectRoot(), "config", "crd", "bases", "*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(crds).To(HaveLen(len(minimal)))

		for _, file := range crds {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			Expect(testenv.ReadYAML(file, crd)).To(Succeed())
			schema := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
			for _, part := range []string{"spec", "status"} {
				for field, property := range schema.Properties[part].Properties {
					path := fmt.Sprintf("%s.%s.%s", crd.Spec.Names.Plural, part, field)
					Expect(property.Description).NotTo(BeEmpty(), "%s has no description", path)
					out, err := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kubeconfig, "explain", path,
						"--api-version", seedv1alpha1.GroupVersion.String()).CombinedOutput()
					Expect(err).NotTo(HaveOccurred(), "kubectl explain %s: %s", path, out)
					// kubectl folds the description into lines of its own.
					firstWords := strings.Join(strings.Fields(property.Description)[:3], " ")
					Expect(strings.Join(strings.Fields(string(out)), " ")).To(ContainSubstring(firstWords), "kubectl explain %s", path)
				}
			}
		}
	})
})

func must[T any](v T, err error) T {
	GinkgoHelper()
	Expect(err).NotTo(HaveOccurred())
	return v
}
