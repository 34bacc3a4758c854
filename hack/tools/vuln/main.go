// Command vulncheck runs govulncheck (golang.org/x/vuln, pinned by this
// module) on packages of the module in the current folder, against a
// vulnerability database in a folder of OSV reports (golang.org/x/vulndb's
// data/osv, which the module proxy serves), and fails on every known
// vulnerability the code reaches, the standard library's among them (those
// of the Go release that the go command in its environment runs):
//
//	vulncheck -db DIR PACKAGE...
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"golang.org/x/vuln/scan"
)

// The parts of govulncheck's JSON stream that say what the code reaches.
type message struct {
	OSV *struct {
		ID      string `json:"id"`
		Summary string `json:"summary"`
	} `json:"osv"`
	Finding *struct {
		OSV          string  `json:"osv"`
		FixedVersion string  `json:"fixed_version"`
		Trace        []frame `json:"trace"`
	} `json:"finding"`
}

type frame struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Function string `json:"function"`
}

// reached is a vulnerability the code calls into.
type reached struct {
	id, summary, module, version, fixed string
}

func (r reached) String() string {
	fixed := "no fix yet"
	if r.fixed != "" {
		fixed = "fixed in " + r.fixed
	}
	return fmt.Sprintf("%s %s@%s (%s): %s", r.id, r.module, r.version, fixed, r.summary)
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "vulncheck: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	flags := flag.NewFlagSet("vulncheck", flag.ContinueOnError)
	db := flags.String("db", "", "a folder of OSV reports, one <ID>.json each")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *db == "" || flags.NArg() == 0 {
		return errors.New("usage: vulncheck -db DIR PACKAGE...")
	}
	found, err := scanPackages(*db, flags.Args())
	if err != nil {
		return err
	}
	for _, r := range found {
		fmt.Fprintln(out, r)
	}
	fmt.Fprintf(out, "%d known vulnerabilities reached, %d of them in the standard library\n",
		len(found), countModules(found, "stdlib"))
	if len(found) > 0 {
		return fmt.Errorf("%d vulnerabilities to fix: update the modules named (go get MODULE@FIXED), or the Go release (stdlib)", len(found))
	}
	return nil
}

// scanPackages runs govulncheck and returns what the code reaches, by
// vulnerability.
func scanPackages(db string, packages []string) ([]reached, error) {
	stream, output := io.Pipe()
	cmd := scan.Command(context.Background(), append([]string{"-format", "json", "-db", "file://" + db}, packages...)...)
	cmd.Stdout = output
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting govulncheck: %w", err)
	}
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		_ = output.CloseWithError(err)
		done <- err
	}()

	summaries := map[string]string{}
	found := map[string]reached{}
	decoder := json.NewDecoder(stream)
	for {
		var m message
		if err := decoder.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading govulncheck's report: %w", err)
		}
		if m.OSV != nil {
			summaries[m.OSV.ID] = m.OSV.Summary
		}
		// A finding reaches the code when its trace starts at a function;
		// one without is in a package or module that is only imported.
		if f := m.Finding; f != nil && len(f.Trace) > 0 && f.Trace[0].Function != "" {
			at := f.Trace[0]
			found[f.OSV] = reached{id: f.OSV, module: at.Module, version: at.Version, fixed: f.FixedVersion}
		}
	}
	if err := <-done; err != nil {
		return nil, fmt.Errorf("govulncheck: %w", err)
	}
	var list []reached
	for _, id := range slices.Sorted(maps.Keys(found)) {
		r := found[id]
		r.summary = summaries[id]
		list = append(list, r)
	}
	return list, nil
}

func countModules(list []reached, module string) int {
	n := 0
	for _, r := range list {
		if r.module == module {
			n++
		}
	}
	return n
}
