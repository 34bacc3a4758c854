package plugin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// waitFlags are --wait and --timeout, as kubectl's own commands give them.
type waitFlags struct {
	wait    bool
	timeout time.Duration
}

func (w *waitFlags) add(cmd *cobra.Command, what string) {
	cmd.Flags().BoolVar(&w.wait, "wait", false, "Wait until "+what)
	cmd.Flags().DurationVar(&w.timeout, "timeout", 5*time.Minute, "How long --wait waits")
}

// until reads obj again every s.Poll until done says it is done, done
// fails, or the timeout passes; then it says what it last saw.
func (s *Session) until(ctx context.Context, w waitFlags, obj client.Object, done func() (bool, error), last func() string) error {
	// Each read takes ctx, not the wait's own context, so that the timeout
	// ends the wait between reads, never a read, whose error would then
	// say nothing of what was waited for.
	err := wait.PollUntilContextTimeout(ctx, s.Poll, w.timeout, true, func(context.Context) (bool, error) {
		if err := s.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return false, fmt.Errorf("reading %s: %w", obj.GetName(), err)
		}
		return done()
	})
	if wait.Interrupted(err) && !errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("still waiting after %s: %s", w.timeout, last())
	}
	return err
}
