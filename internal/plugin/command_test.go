package plugin

import (
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestEveryCommandHasAnExample checks that each command's --help shows
// how it is run.
func TestEveryCommandHasAnExample(t *testing.T) {
	var check func(*cobra.Command)
	check = func(cmd *cobra.Command) {
		if cmd.Example == "" {
			t.Errorf("%s has no example", cmd.CommandPath())
		}
		for _, sub := range cmd.Commands() {
			check(sub)
		}
	}
	check(NewCommand(genericiooptions.NewTestIOStreamsDiscard()))
}
