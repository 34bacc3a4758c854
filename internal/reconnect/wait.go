package reconnect

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// StartupGrace is how long WaitForAPIServer takes errors the API server
// answers for passing ones: one that has just started answers 401 and 403
// for a few seconds, until its authenticators and authorizer have caught
// up with their objects.
const StartupGrace = 30 * time.Second

// WaitForAPIServer returns once the API server of config answers, trying
// every Period while it cannot be reached, and for StartupGrace while it
// answers with an error. The manager cannot be made without it (its cache
// asks the API server which kinds are namespaced), and one started while it
// is away, as the kubelet restarts a container that exited in an outage,
// would otherwise exit again into the kubelet's growing restart back-off.
func WaitForAPIServer(ctx context.Context, config *rest.Config) error {
	client, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return fmt.Errorf("creating a discovery client: %w", err)
	}
	log := log.WithValues("verb", "get", "path", "/version")
	var answered time.Time
	for {
		err := retry(ctx, Period, log, func() error {
			_, err := client.ServerVersion()
			return err
		})
		if err == nil {
			return nil
		}
		if answered.IsZero() {
			answered = time.Now()
			log.Info("The API server answers with an error; trying again", "for", StartupGrace.String(), "error", err.Error())
		}
		if time.Since(answered) >= StartupGrace {
			return fmt.Errorf("waiting for the API server: %w", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the API server: %w", err)
		case <-time.After(Period):
		}
	}
}
