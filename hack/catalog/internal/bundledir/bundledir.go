// Package bundledir tells which folder of this repository holds the bundle of
// a version: the rule render-catalog and operatorhub share.
package bundledir

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/blang/semver/v4"
)

// Of is the bundle folder of a version: released/X.Y.Z when that folder
// exists (a released version, frozen), and otherwise current, the bundle
// `make bundle` writes for the version under development. The caller checks
// that current is of that version.
func Of(released, current string, version semver.Version) string {
	dir := filepath.Join(released, version.String())
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return current
	}
	return dir
}
