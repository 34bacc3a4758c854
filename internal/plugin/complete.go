package plugin

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// complete completes an argument with the names of list's objects in the
// namespace, each after prefix (dv/ for dv/NAME).
func (s *Session) complete(list client.ObjectList, prefix string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if err := s.connect(); err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		return s.names(cmd.Context(), list, prefix), cobra.ShellCompDirectiveNoFileComp
	}
}

func (s *Session) names(ctx context.Context, list client.ObjectList, prefix string) []cobra.Completion {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := s.Client.List(ctx, list, client.InNamespace(s.Namespace)); err != nil {
		return nil
	}
	var names []cobra.Completion
	_ = meta.EachListItem(list, func(obj runtime.Object) error {
		if o, ok := obj.(client.Object); ok {
			names = append(names, prefix+o.GetName())
		}
		return nil
	})
	return names
}
