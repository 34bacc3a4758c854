//go:build tools

// Package tools pins prometheus-operator's programs, which the Makefile
// builds from this module.
package tools

import (
	_ "github.com/prometheus-operator/prometheus-operator/cmd/operator"
	_ "github.com/prometheus-operator/prometheus-operator/cmd/prometheus-config-reloader"
)
