package webserver

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
)

// FuzzNamesApart checks that two WebServers of one namespace never want an
// object of the same kind and name: WebServer a's Service is a-service,
// and WebServer a-service's Deployment shares that name, but not its kind.
// Only objects the operator did not make can stand in a WebServer's way,
// and those it leaves alone (apply.NameConflictError).
func FuzzNamesApart(f *testing.F) {
	f.Add("a", "a-service")
	f.Add("a-service", "a-service-service")
	f.Add("web", "web-")
	f.Fuzz(func(t *testing.T, a, b string) {
		if a == b || len(validation.IsDNS1035Label(a)) > 0 || len(validation.IsDNS1035Label(b)) > 0 {
			t.Skip("the API server refuses the name, or it is one WebServer")
		}
		wsA, wsB := newWebServer(), newWebServer()
		wsA.Name, wsB.Name = a, b
		names := map[string]string{}
		for _, ws := range []struct{ kind, owner, name string }{
			{"Deployment", a, ptr.Deref(desiredDeployment(wsA).Name, "")},
			{"Service", a, ptr.Deref(desiredService(wsA).Name, "")},
			{"Deployment", b, ptr.Deref(desiredDeployment(wsB).Name, "")},
			{"Service", b, ptr.Deref(desiredService(wsB).Name, "")},
		} {
			key := ws.kind + "/" + ws.name
			if owner, taken := names[key]; taken && owner != ws.owner {
				t.Fatalf("WebServers %s and %s both want %s", owner, ws.owner, key)
			}
			names[key] = ws.owner
		}
	})
}
