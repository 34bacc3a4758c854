//go:build tools

// Package tools pins the programs the Makefile builds from this module.
package tools

import (
	_ "github.com/operator-framework/operator-sdk/cmd/operator-sdk"
	_ "github.com/operator-framework/operator-sdk/images/scorecard-test"
	_ "helm.sh/helm/v4/cmd/helm"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
