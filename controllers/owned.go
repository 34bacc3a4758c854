// Package controllers holds what the manager needs of all the operator's
// controllers at once; each kind's controller is a package below it.
package controllers

import (
	"slices"

	"github.com/seed-operators/seed-operator/controllers/demovolume"
	"github.com/seed-operators/seed-operator/controllers/echo"
	"github.com/seed-operators/seed-operator/controllers/immortalcontainer"
	"github.com/seed-operators/seed-operator/controllers/webserver"
)

// Owned are the kinds of the objects every controller makes, and what it
// reads of them, from which the manager's cache is built
// (cached.Options).
var Owned = slices.Concat(webserver.Owned, echo.Owned, immortalcontainer.Owned, demovolume.Owned)
