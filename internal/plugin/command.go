// Package plugin is kubectl-seed, the kubectl plugin for what users of
// seed-operator do by hand otherwise: read every resource's health at
// once, take a backup, restore one, and follow a WebServer's rollout.
//
// Each command reads and writes only through the user's own credentials,
// as kubectl does, and refuses bad input before it writes anything.
package plugin

import (
	"context"
	"fmt"
	"strings"
	"time"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedv1alpha1 "github.com/seed-operators/seed-operator/api/v1alpha1"
)

// Scheme holds every kind the plugin reads.
var Scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(Scheme))
	utilruntime.Must(seedv1alpha1.AddToScheme(Scheme))
	utilruntime.Must(snapshotv1.AddToScheme(Scheme))
}

// Session is what every command acts with: clients and the namespace of
// the user's flags and kubeconfig, where to write, and the clock.
type Session struct {
	genericiooptions.IOStreams
	Client client.Client
	// Kube reads what Client cannot: pods' logs.
	Kube      kubernetes.Interface
	Namespace string
	// Poll is how often --wait reads again.
	Poll time.Duration
	Now  func() time.Time

	flags *genericclioptions.ConfigFlags
	// config, when set, is used in place of the flags'.
	config *rest.Config
}

// NewCommand is `kubectl seed`, with kubectl's connection flags.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	return newCommand(&Session{IOStreams: streams, Poll: time.Second, Now: time.Now})
}

// newCommand is `kubectl seed` in s; one given a client keeps it.
func newCommand(s *Session) *cobra.Command {
	s.flags = genericclioptions.NewConfigFlags(true)
	root := &cobra.Command{
		Use:   "kubectl-seed",
		Short: "Read and run seed-operator's resources: status, backup, restore, rollout, report",
		Long: "kubectl seed reads the health of every seed-operator resource at once, takes and\n" +
			"restores DemoVolume backups, shows a WebServer's rollout as the operator sees them,\n" +
			"and writes a support bundle.",
		Example: "  # Every resource of the namespace shop, and the operator\n  kubectl seed status -n shop\n\n" +
			"  # Back up the DemoVolume data, then restore the backup into a new DemoVolume\n" +
			"  kubectl seed backup dv/data --wait\n  kubectl seed restore dv/data --backup BACKUP --to data-copy --wait",
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl seed",
		},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	s.flags.AddFlags(root.PersistentFlags())
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	root.AddCommand(
		newStatusCommand(s),
		newBackupCommand(s),
		newRestoreCommand(s),
		newRolloutCommand(s),
		newReportCommand(s),
	)
	return root
}

// connected is run once connected to the cluster the flags name: a
// command that needs no cluster, such as completion, never connects.
func (s *Session) connected(run func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := s.connect(); err != nil {
			return err
		}
		return run(cmd, args)
	}
}

// connect makes the clients and finds the namespace from the flags, once;
// a Session made with a configuration and a namespace (as tests make it)
// uses those.
func (s *Session) connect() error {
	if s.Client != nil {
		return nil
	}
	if s.config == nil {
		config, err := s.flags.ToRESTConfig()
		if err != nil {
			return fmt.Errorf("reading the kubeconfig: %w", err)
		}
		if s.Namespace, _, err = s.flags.ToRawKubeConfigLoader().Namespace(); err != nil {
			return fmt.Errorf("finding the namespace: %w", err)
		}
		s.config = config
	}
	var err error
	if s.Client, err = client.New(s.config, client.Options{Scheme: Scheme}); err != nil {
		return fmt.Errorf("connecting to the cluster: %w", err)
	}
	if s.Kube, err = kubernetes.NewForConfig(s.config); err != nil {
		return fmt.Errorf("connecting to the cluster: %w", err)
	}
	return nil
}

// oneOf is a kind of which a command takes one resource, as TYPE/NAME
// or NAME.
type oneOf struct {
	kind string
	// names are the kind's names in TYPE, as kubectl takes them: the short
	// name (which completion gives), the singular and the plural.
	names []string
	list  func() client.ObjectList
}

var (
	demoVolumes = oneOf{kind: "DemoVolume", names: []string{"dv", "demovolume", "demovolumes"},
		list: func() client.ObjectList { return &seedv1alpha1.DemoVolumeList{} }}
	webServers = oneOf{kind: "WebServer", names: []string{"ws", "webserver", "webservers"},
		list: func() client.ObjectList { return &seedv1alpha1.WebServerList{} }}
)

// takes makes cmd take one resource of k, completed from the namespace's,
// and run on its name once connected.
func (s *Session) takes(k oneOf, cmd *cobra.Command, run func(ctx context.Context, name string) error) *cobra.Command {
	cmd.Args = cobra.ExactArgs(1)
	cmd.ValidArgsFunction = s.complete(k.list(), k.names[0]+"/")
	cmd.RunE = s.connected(func(cmd *cobra.Command, args []string) error {
		name, err := k.name(args[0])
		if err != nil {
			return err
		}
		return run(cmd.Context(), name)
	})
	return cmd
}

// name is the name in arg, TYPE/NAME or NAME, when TYPE names k.
func (k oneOf) name(arg string) (string, error) {
	typ, name, found := strings.Cut(arg, "/")
	if !found {
		return arg, nil
	}
	for _, n := range k.names {
		if strings.EqualFold(typ, n) || strings.EqualFold(typ, n+"."+seedv1alpha1.GroupVersion.Group) {
			if name == "" {
				return "", fmt.Errorf("%s names no %s", arg, k.kind)
			}
			return name, nil
		}
	}
	return "", fmt.Errorf("%s is not a %s: give %s/NAME", arg, k.kind, k.names[0])
}
