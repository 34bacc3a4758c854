package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// starvationResult is how long a few WebServers take to be Ready while the
// operator is flooded with Echoes, and alone: the controllers share the
// process and its client, and one kind's burst should not starve another.
type starvationResult struct {
	Echoes     int         `json:"echoes"`
	WebServers int         `json:"webServers"`
	During     burstResult `json:"during"`
	Alone      burstResult `json:"alone"`
}

// starvationDelay lets the Echo burst fill the operator's queue first.
const starvationDelay = 2 * time.Second

func kindNamed(name string) kind {
	return kinds[slices.IndexFunc(kinds, func(k kind) bool { return k.name == name })]
}

// starvation creates n Echoes and, while they are being made, a few
// WebServers; then as many WebServers again on a quiet operator.
func (c *clients) starvation(ctx context.Context, cfg config, n int, timeout time.Duration) (*starvationResult, []string, error) {
	web, echo := kindNamed("WebServer"), kindNamed("Echo")
	res := &starvationResult{Echoes: n, WebServers: max(n/50, 10)}
	during, alone := "bench-starvation", "bench-starvation-alone"
	namespaces := []string{during, alone}

	echoes := make(chan error, 1)
	if err := c.createNamespace(ctx, during); err != nil {
		return nil, namespaces, err
	}
	go func() {
		_, err := c.burst(ctx, during, n, cfg.workers, echo.operator, timeout)
		echoes <- err
	}()
	time.Sleep(starvationDelay)
	var err error
	if res.During, err = c.burst(ctx, during, res.WebServers, cfg.workers, web.operator, timeout); err != nil {
		return nil, namespaces, fmt.Errorf("WebServers during the Echo burst: %w", err)
	}
	if err := <-echoes; err != nil {
		return nil, namespaces, fmt.Errorf("the Echo burst: %w", err)
	}
	res.Alone, err = c.inNamespace(ctx, alone, func() (burstResult, error) {
		return c.burst(ctx, alone, res.WebServers, cfg.workers, web.operator, timeout)
	})
	return res, namespaces, err
}

// measuresStarvation tells whether the kinds the run measures include both
// WebServer and Echo.
func measuresStarvation(cfg config) bool {
	found := 0
	for _, k := range cfg.kinds {
		if strings.EqualFold(k.name, "WebServer") || strings.EqualFold(k.name, "Echo") {
			found++
		}
	}
	return found == 2
}
