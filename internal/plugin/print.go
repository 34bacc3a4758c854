package plugin

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/moby/term"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// printer writes aligned columns, as kubectl does, and keeps the first
// error, which flush returns.
type printer struct {
	tw  *tabwriter.Writer
	err error
}

func newPrinter(out io.Writer) *printer {
	return &printer{tw: tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)}
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.tw, format, args...)
	}
}

func (p *printer) flush() error {
	if p.err != nil {
		return p.err
	}
	return p.tw.Flush()
}

// say writes a line of what a command did.
func say(out io.Writer, format string, args ...any) error {
	_, err := fmt.Fprintf(out, format+"\n", args...)
	return err
}

// isTerminal says whether out is a terminal, where status colours.
func isTerminal(out io.Writer) bool {
	_, terminal := term.GetFdInfo(out)
	return terminal
}

// colours are the escapes status colours a Ready condition with; all are
// as long, and so is defaultColour, which every other cell of the column
// takes, so that the columns stay aligned.
var colours = map[string]string{
	string(metav1.ConditionTrue):    "\x1b[32m",
	string(metav1.ConditionFalse):   "\x1b[31m",
	string(metav1.ConditionUnknown): "\x1b[33m",
}

const (
	defaultColour = "\x1b[39m"
	resetColour   = "\x1b[0m"
)

// paint colours cell, when colour is on.
func paint(cell string, colour bool) string {
	if !colour {
		return cell
	}
	c, ok := colours[cell]
	if !ok {
		c = defaultColour
	}
	return c + cell + resetColour
}
