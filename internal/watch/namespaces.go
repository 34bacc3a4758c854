// Package watch decides which namespaces the manager watches.
package watch

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// NamespaceEnv is the environment variable through which OLM tells the
// operator which namespaces its OperatorGroup targets.
const NamespaceEnv = "WATCH_NAMESPACE"

// Namespaces turns the value of WATCH_NAMESPACE into the cache's namespaces:
// empty means every namespace (nil), one name or a comma-separated list
// means only those (OLM's OwnNamespace, SingleNamespace and MultiNamespace
// install modes).
func Namespaces(value string) (map[string]cache.Config, error) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	namespaces := map[string]cache.Config{}
	for name := range strings.SplitSeq(value, ",") {
		name = strings.TrimSpace(name)
		if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
			return nil, fmt.Errorf("%s=%q: namespace %q is not valid: %s", NamespaceEnv, value, name, strings.Join(errs, "; "))
		}
		namespaces[name] = cache.Config{}
	}
	return namespaces, nil
}
