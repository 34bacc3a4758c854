package plugin

import (
	"fmt"
	"io"
	"text/tabwriter"
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
