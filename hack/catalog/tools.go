//go:build tools

package main

import (
	_ "github.com/operator-framework/operator-registry/cmd/opm"
)
