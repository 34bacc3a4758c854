// Command fetch gets a URL and prints the body, for the end-to-end suite's
// pods (busybox's wget is not to be trusted on every machine):
//
//	fetch [--timeout 5s] [--insecure] [--token-file FILE] [--status] URL
//	fetch --rate N [--timeout 5s] URL
//
// It exits 1 when the request fails or the status is not 200. With
// --status it prints the status code alone, whatever it is, and exits 0
// once an answer came; --token-file sends the file's content as a bearer
// token, as a service account's client does.
//
// With --rate it is a load: it sends N requests a second until it is
// killed, each on a connection of its own so that a Service spreads them
// over its endpoints, and prints nothing. The server's work is then the
// same on a fast machine and a slow one, where a loop of fetch processes
// would send as many requests as the machine can fork.
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// maxInFlight bounds a load's requests that have not been answered yet:
// a stalled server gets no more than this many connections.
const maxInFlight = 256

func main() {
	timeout := flag.Duration("timeout", 5*time.Second, "how long the request may take")
	insecure := flag.Bool("insecure", false, "accept any server certificate")
	tokenFile := flag.String("token-file", "", "a file whose content to send as a bearer token")
	status := flag.Bool("status", false, "print the status code only")
	rate := flag.Int("rate", 0, "send this many requests a second until killed, printing nothing")
	flag.Parse()
	if flag.NArg() != 1 || *rate < 0 {
		fmt.Fprintln(os.Stderr, "usage: fetch [--timeout 5s] [--insecure] [--token-file FILE] [--status] URL\n       fetch --rate N [--timeout 5s] URL")
		os.Exit(2)
	}
	if *rate > 0 {
		load(flag.Arg(0), *rate, *timeout)
	}
	if err := fetch(flag.Arg(0), *timeout, *insecure, *tokenFile, *status); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func fetch(url string, timeout time.Duration, insecure bool, tokenFile string, statusOnly bool) error {
	client := http.Client{Timeout: timeout}
	if insecure {
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // Test pods only.
	}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if tokenFile != "" {
		token, err := os.ReadFile(tokenFile)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if statusOnly {
		fmt.Println(resp.StatusCode)
		return nil
	}
	if _, err := io.Copy(os.Stdout, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}

// load sends rate requests a second to url, forever.
func load(url string, rate int, timeout time.Duration) {
	client := http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	inFlight := make(chan struct{}, maxInFlight)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	for range tick.C {
		select {
		case inFlight <- struct{}{}:
		default:
			continue
		}
		go func() {
			defer func() { <-inFlight }()
			resp, err := client.Get(url)
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}()
	}
}
