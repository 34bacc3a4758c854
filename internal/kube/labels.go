package kube

// Standard labels, as recommended for Kubernetes applications.
const (
	LabelName      = "app.kubernetes.io/name"
	LabelInstance  = "app.kubernetes.io/instance"
	LabelManagedBy = "app.kubernetes.io/managed-by"

	// ManagedBy is the value of LabelManagedBy on every object the operator
	// creates. The manager's cache only holds owned objects with this label.
	ManagedBy = "seed-operator"
)

// FieldManager owns every field the operator sets on the objects it manages.
const FieldManager = "seed-operator"

// SelectorLabels identify the objects made for one custom resource. They
// never include anything that changes over the resource's life (such as an
// image tag), because a Deployment's selector is immutable.
func SelectorLabels(kind, instance string) map[string]string {
	return map[string]string{
		LabelName:     kind,
		LabelInstance: instance,
	}
}

// Labels are the labels of an object made for a custom resource: its
// selector labels and who manages it.
func Labels(kind, instance string) map[string]string {
	all := SelectorLabels(kind, instance)
	all[LabelManagedBy] = ManagedBy
	return all
}
