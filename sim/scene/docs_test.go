package scene

import (
	"flag"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/contact"
	"drape/sim/springs"
	"drape/sim/strainlimit"
)

var update = flag.Bool("update", false, "rewrite the generated tables in docs/scenes.md")

// repoRoot is the repository root seen from this package's directory,
// where go test runs.
const repoRoot = "../.."

// docTables are the generated parameter tables of docs/scenes.md: the
// marker name and the table that goes between its BEGIN and END lines.
func docTables() [][2]string {
	return [][2]string{
		{"params", cloth.ParamTable.Markdown()},
		{"adapt", cloth.AdaptTable.Markdown()},
		{"contact", contact.Table.Markdown()},
		{"strain", strainlimit.Table.Markdown()},
		{"springs", springs.ParamTable.Markdown()},
	}
}

// TestDocTables checks that the parameter tables in docs/scenes.md are
// the ones the schema tables (cloth.ParamTable, cloth.AdaptTable,
// contact.Table, strainlimit.Table, springs.ParamTable) generate, so the
// manual cannot drift from the schema.
// go test ./sim/scene -run TestDocTables -update rewrites them.
func TestDocTables(t *testing.T) {
	file := filepath.Join(repoRoot, "docs", "scenes.md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, tb := range docTables() {
		begin := "<!-- BEGIN " + tb[0] + " table: generated, go test ./sim/scene -run TestDocTables -update -->\n"
		end := "<!-- END " + tb[0] + " table -->"
		i := strings.Index(text, begin)
		j := strings.Index(text, end)
		if i < 0 || j < i {
			t.Errorf("docs/scenes.md has no %q … %q block", begin, end)
			continue
		}
		got := text[i+len(begin) : j]
		if got == tb[1] {
			continue
		}
		if *update {
			text = text[:i+len(begin)] + tb[1] + text[j:]
			continue
		}
		t.Errorf("docs/scenes.md's %s table differs from the generated one; run go test ./sim/scene -run TestDocTables -update\ngot:\n%s\nwant:\n%s", tb[0], got, tb[1])
	}
	if *update {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// docFiles returns README.md and every .md file under docs/, as paths
// relative to the repository root with forward slashes.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(repoRoot, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	fenceRE   = regexp.MustCompile("(?ms)^[ \t]*```.*?^[ \t]*```[^\n]*$")
	commentRE = regexp.MustCompile(`(?s)<!--.*?-->`)
	codeRE    = regexp.MustCompile("`[^`\n]*`")
	linkRE    = regexp.MustCompile(`!?\[[^\]\n]*\]\(([^()\s]+)\)`)
	headingRE = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$`)
)

// prose returns markdown text without fenced code blocks and HTML
// comments, where a link or a heading is no link or heading.
func prose(md string) string {
	return commentRE.ReplaceAllString(fenceRE.ReplaceAllString(md, ""), "")
}

// mdLinks returns the targets of the inline links and images in md,
// outside code.
func mdLinks(md string) []string {
	var out []string
	for _, m := range linkRE.FindAllStringSubmatch(codeRE.ReplaceAllString(prose(md), ""), -1) {
		out = append(out, m[1])
	}
	return out
}

// headingAnchor returns the anchor GitHub gives a heading: lower case,
// inline code's backticks and every other character that is not a letter,
// mark, digit, connector, space or hyphen dropped, spaces made hyphens.
func headingAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.Pc):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdAnchors returns the anchors of md's headings, with GitHub's -1, -2, …
// suffixes for repeated ones.
func mdAnchors(md string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, m := range headingRE.FindAllStringSubmatch(prose(md), -1) {
		a := headingAnchor(m[1])
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// brokenLinks returns, for the markdown text md of the file at rel (a
// slash path relative to the repository root), each relative link whose
// file does not exist or whose anchor names no heading of a markdown
// target, with the reason. read reads a slash path relative to the root.
func brokenLinks(rel, md string, read func(string) (string, error)) []string {
	var bad []string
	for _, l := range mdLinks(md) {
		if strings.Contains(l, "://") || strings.HasPrefix(l, "mailto:") {
			continue // absolute URLs are not checked
		}
		target, anchor, _ := strings.Cut(l, "#")
		p := rel
		if target != "" {
			p = path.Clean(path.Join(path.Dir(rel), target))
		}
		if p == ".." || strings.HasPrefix(p, "../") {
			bad = append(bad, l+": leaves the repository")
			continue
		}
		if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(p))); err != nil {
			bad = append(bad, l+": no file "+p)
			continue
		}
		if anchor == "" || !strings.HasSuffix(p, ".md") {
			continue
		}
		text, err := read(p)
		if err != nil {
			bad = append(bad, l+": "+err.Error())
			continue
		}
		if !mdAnchors(text)[anchor] {
			bad = append(bad, l+": no heading #"+anchor+" in "+p)
		}
	}
	return bad
}

// readDoc reads the file at p, a slash path relative to the repository
// root.
func readDoc(p string) (string, error) {
	b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(p)))
	return string(b), err
}

// TestDocLinks checks that every relative link in README.md and in the
// markdown files under docs/ reaches a file or folder of the repository
// and, where it names an anchor in a markdown file, one of that file's
// headings.
func TestDocLinks(t *testing.T) {
	for _, f := range docFiles(t) {
		text, err := readDoc(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range brokenLinks(f, text, readDoc) {
			t.Errorf("%s: broken link %s", f, b)
		}
	}
}

// TestDocLinksCatch checks that the link check finds what it must: a
// missing file, a missing anchor, a link out of the repository, and
// not a link inside code or a comment.
func TestDocLinksCatch(t *testing.T) {
	for _, c := range []struct {
		md   string
		want int
	}{
		{"[ok](../README.md) [ok](scenes.md#saving-a-scene) [ok](notes/)", 0},
		{"[web](https://example.com/x.md#y) `[code](nowhere.md)`", 0},
		{"```\n[fence](nowhere.md)\n```\n<!-- [comment](nowhere.md) -->", 0},
		{"[missing](nowhere.md)", 1},
		{"![missing image](images/nowhere.png)", 1},
		{"[missing anchor](scenes.md#no-such-heading)", 1},
		{"[out](../../x.md)", 1},
	} {
		if got := brokenLinks("docs/x.md", c.md, readDoc); len(got) != c.want {
			t.Errorf("brokenLinks(%q) got=%q, want %d broken", c.md, got, c.want)
		}
	}
	anchors := mdAnchors("# Title\n\n## The 5× speedup, bounded\n\n## Repeated\n\n## Repeated\n\n```\n# not a heading\n```\n")
	for _, a := range []string{"title", "the-5-speedup-bounded", "repeated", "repeated-1"} {
		if !anchors[a] {
			t.Errorf("mdAnchors: got=%v, want it to hold %q", anchors, a)
		}
	}
	if anchors["not-a-heading"] {
		t.Errorf("mdAnchors: got=%v, want no anchor from a code block", anchors)
	}
}

// TestREADMEScenes checks that the README's scene table lists every
// built-in scene, once, and no other.
func TestREADMEScenes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, "\n## Scenes\n")
	if i < 0 {
		t.Fatal("README.md has no \"## Scenes\" section")
	}
	sec := text[i+1:]
	if j := strings.Index(sec[3:], "\n## "); j >= 0 {
		sec = sec[:j+3]
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\|.*\\|$")
	var got []string
	for _, m := range row.FindAllStringSubmatch(sec, -1) {
		got = append(got, m[1])
		// Every scene links its still (tools/gallery.sh); TestDocLinks
		// checks that the file exists.
		if still := "(docs/images/" + m[1] + ".png)"; !strings.Contains(m[0], still) {
			t.Errorf("README.md's scene table: the row of %s does not link its still %s", m[1], still)
		}
	}
	slices.Sort(got)
	want := SceneNames(assets.Scenes)
	if !slices.Equal(got, want) {
		t.Errorf("README.md's scene table: got=%v, want=%v (assets/scenes)", got, want)
	}
}
