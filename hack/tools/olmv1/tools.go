//go:build tools

// Package tools pins OLM v1's programs, which the Makefile builds from this
// module.
package tools

import (
	_ "github.com/operator-framework/operator-controller/cmd/catalogd"
	_ "github.com/operator-framework/operator-controller/cmd/operator-controller"
)
