// Package docs holds the project's documentation, and checks that every
// link in it, and in the README, leads somewhere in the repository: users
// have only the repository, so a link that leaves it (a web page
// included), or names a file or a heading that is not there, is broken.
package docs

import (
	"bufio"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// repoRoot is the repository, seen from this package's directory.
const repoRoot = ".."

// TestLinks checks every link of README.md and of the Markdown files under
// docs/.
func TestLinks(t *testing.T) {
	files, err := markdownFiles(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("found %d Markdown files, want README.md and the pages under docs/", len(files))
	}
	for _, problem := range checkLinks(repoRoot, files) {
		t.Error(problem)
	}
}

// TestLinksFail shows that the check finds each kind of broken link.
func TestLinksFail(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "# Top\n\nSee [the guide](docs/guide.md#running-it-twice).\n")
	write("docs/guide.md", "# Guide\n\n## Running it, twice\n\n## Running it, twice\n")
	write("main.go", "package main\n")

	tests := []struct {
		name, link string
		ok         bool
	}{
		{"a file", "../main.go", true},
		{"a folder", ".", true},
		{"a heading in another file", "guide.md#running-it-twice", true},
		{"a repeated heading", "guide.md#running-it-twice-1", true},
		{"a heading in the same file", "#page", true},
		{"a web page", "https://example.com/missing", false},
		{"a mail address", "mailto:someone@example.com", false},
		{"a link with a title", `../main.go "the main file"`, true},
		{"a missing file", "missing.md", false},
		{"a missing heading", "guide.md#nowhere", false},
		{"a missing heading in the same file", "#nowhere", false},
		{"a third repeat of a heading", "guide.md#running-it-twice-2", false},
		{"an absolute path", "/etc/hosts", false},
		{"a path out of the repository", "../../outside.md", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write("docs/page.md", fmt.Sprintf("# Page\n\nA [link](%s).\n", tt.link))
			problems := checkLinks(root, []string{filepath.Join(root, "docs", "page.md")})
			if tt.ok && len(problems) > 0 {
				t.Errorf("link %q: want no problem, got %q", tt.link, problems)
			}
			if !tt.ok && len(problems) == 0 {
				t.Errorf("link %q: want a problem, got none", tt.link)
			}
		})
	}
}

// TestLinksSkipCode shows that what looks like a link in code is not
// checked: it is text, not a link.
func TestLinksSkipCode(t *testing.T) {
	root := t.TempDir()
	text := "# Page\n\n`[not](a-link.md)`\n\n```sh\necho [not](a-link.md)\n```\n\n  ~~~\n  [not](a-link.md)\n  ~~~\n"
	path := filepath.Join(root, "page.md")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if problems := checkLinks(root, []string{path}); len(problems) > 0 {
		t.Errorf("want no problem, got %q", problems)
	}
}

// TestAnchor checks headings against the anchors GitHub gives them.
func TestAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"Objects it makes, and names already taken": "objects-it-makes-and-names-already-taken",
		"OLM v1":                               "olm-v1",
		"`make test`: unit and envtest":        "make-test-unit-and-envtest",
		"The [manager](main.go) and its flags": "the-manager-and-its-flags",
		"snake_case stays":                     "snake_case-stays",
		"Ünïcode letters stay":                 "ünïcode-letters-stay",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

// markdownFiles are root's README.md and every Markdown file under
// root/docs.
func markdownFiles(root string) ([]string, error) {
	files := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	return files, err
}

// checkLinks returns a problem for each link of files, Markdown files in
// the repository at root, that does not lead to a file of the repository,
// or to a heading of the Markdown file it names.
func checkLinks(root string, files []string) []string {
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return []string{err.Error()}
	}
	headings := map[string]map[string]bool{}
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := headings[path]; ok {
			return a, nil
		}
		doc, err := readMarkdown(path)
		if err != nil {
			return nil, err
		}
		headings[path] = doc.anchors
		return doc.anchors, nil
	}

	var problems []string
	for _, file := range files {
		doc, err := readMarkdown(file)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		headings[file] = doc.anchors
		name := file
		if abs, err := filepath.Abs(file); err == nil {
			if rel, err := filepath.Rel(rootAbs, abs); err == nil {
				name = filepath.ToSlash(rel)
			}
		}
		for _, l := range doc.links {
			if problem := checkLink(rootAbs, file, l.target, anchorsOf); problem != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: link %q: %s", name, l.line, l.target, problem))
			}
		}
	}
	return problems
}

// checkLink returns what is wrong with the link target in file, or "".
func checkLink(rootAbs, file, target string, anchorsOf func(string) (map[string]bool, error)) string {
	lower := strings.ToLower(target)
	if strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "mailto:") {
		return "outside the repository, which is all a reader may be sure to have: name the page or project instead"
	}
	path, fragment, _ := strings.Cut(target, "#")
	path, err := url.PathUnescape(path)
	if err != nil {
		return fmt.Sprintf("cannot read the path: %v", err)
	}
	if strings.Contains(path, ":") {
		return "not a web page, a mail address or a path in the repository"
	}
	if path == "" {
		path = filepath.Base(file)
	}
	if filepath.IsAbs(path) || strings.HasPrefix(path, "/") {
		return "an absolute path: users have only the repository, so link relative to this file"
	}
	resolved, err := filepath.Abs(filepath.Join(filepath.Dir(file), filepath.FromSlash(path)))
	if err != nil {
		return err.Error()
	}
	if rel, err := filepath.Rel(rootAbs, resolved); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "leads out of the repository"
	}
	info, err := os.Stat(resolved)
	if err != nil {
		return "no such file or folder in the repository"
	}
	if fragment == "" || info.IsDir() || !strings.HasSuffix(resolved, ".md") {
		return ""
	}
	anchors, err := anchorsOf(resolved)
	if err != nil {
		return err.Error()
	}
	if !anchors[fragment] {
		return fmt.Sprintf("%s has no heading whose anchor is #%s", filepath.Base(resolved), fragment)
	}
	return ""
}

// markdown is what the check reads of a Markdown file.
type markdown struct {
	links   []link
	anchors map[string]bool
}

// link is a link's target, and the line it is on.
type link struct {
	target string
	line   int
}

var (
	// inlineLink is an inline link or image, [text](target) with an
	// optional title; the text may hold one level of brackets.
	inlineLink = regexp.MustCompile(`\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`)
	// linkDefinition is a reference link's definition, [label]: target.
	linkDefinition = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)`)
	// atxHeading is a heading such as "## Title ##".
	atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}(?:\s+(.*?))?(?:\s+#+)?\s*$`)
	// fence opens or closes a fenced code block.
	fence = regexp.MustCompile("^\\s*(`{3,}|~{3,})")
)

// readMarkdown reads the links and the headings' anchors of a Markdown
// file, outside code blocks and code spans.
func readMarkdown(path string) (*markdown, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()

	doc := &markdown{anchors: map[string]bool{}}
	seen := map[string]int{}
	var open string // the fence of the code block the line is in, if any
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; scanner.Scan(); n++ {
		line := scanner.Text()
		if m := fence.FindStringSubmatch(line); m != nil {
			switch {
			case open == "":
				open = m[1]
				continue
			case m[1][0] == open[0] && len(m[1]) >= len(open) && strings.TrimSpace(line) == m[1]:
				open = ""
				continue
			}
		}
		if open != "" {
			continue
		}
		if m := atxHeading.FindStringSubmatch(line); m != nil {
			base := anchor(m[1])
			id := base
			if count := seen[base]; count > 0 {
				id = fmt.Sprintf("%s-%d", base, count)
			}
			seen[base]++
			doc.anchors[id] = true
		}
		text := withoutCodeSpans(line)
		for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
			doc.links = append(doc.links, link{target: strings.Trim(m[1], "<>"), line: n})
		}
		if m := linkDefinition.FindStringSubmatch(text); m != nil {
			doc.links = append(doc.links, link{target: strings.Trim(m[1], "<>"), line: n})
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return doc, nil
}

// withoutCodeSpans is line with each code span blanked out: a run of
// backticks up to the next run of the same length.
func withoutCodeSpans(line string) string {
	var b strings.Builder
	for {
		start := strings.IndexByte(line, '`')
		if start < 0 {
			b.WriteString(line)
			return b.String()
		}
		run := start
		for run < len(line) && line[run] == '`' {
			run++
		}
		ticks := line[start:run]
		end := -1
		for i := run; i < len(line); {
			j := strings.Index(line[i:], ticks)
			if j < 0 {
				break
			}
			j += i
			k := j + len(ticks)
			if k >= len(line) || line[k] != '`' {
				end = k
				break
			}
			for k < len(line) && line[k] == '`' {
				k++
			}
			i = k
		}
		if end < 0 {
			// An unmatched run is literal backticks.
			b.WriteString(line[:run])
			line = line[run:]
			continue
		}
		b.WriteString(line[:start])
		b.WriteString(strings.Repeat(" ", end-start))
		line = line[end:]
	}
}

// markup is the Markdown a heading's anchor leaves out: a link's target
// (its text stays), and emphasis and code marks.
var markup = regexp.MustCompile(`\]\([^)]*\)`)

// anchor is the anchor GitHub gives a heading: its text, lower case,
// without punctuation but hyphens and underscores, with each space a
// hyphen. Repeats get -1, -2, ... (readMarkdown).
func anchor(heading string) string {
	text := markup.ReplaceAllString(heading, "")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
