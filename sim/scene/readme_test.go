package scene

import (
	"flag"
	"os"
	"strings"
	"testing"

	"drape/sim/cloth"
	"drape/sim/contact"
	"drape/sim/springs"
	"drape/sim/strainlimit"
)

var update = flag.Bool("update", false, "rewrite the generated tables in README.md")

// readmeTables are the README's generated parameter tables: the marker
// name and the table that goes between its BEGIN and END lines.
func readmeTables() [][2]string {
	return [][2]string{
		{"params", cloth.ParamTable.Markdown()},
		{"adapt", cloth.AdaptTable.Markdown()},
		{"contact", contact.Table.Markdown()},
		{"strain", strainlimit.Table.Markdown()},
		{"springs", springs.ParamTable.Markdown()},
	}
}

// TestREADMETables checks that the parameter tables in README.md's
// "Scene files" section are the ones cloth.ParamTable and
// cloth.AdaptTable generate, so the README cannot drift from the schema.
// go test ./sim/scene -run TestREADMETables -update rewrites them.
func TestREADMETables(t *testing.T) {
	const file = "../../README.md"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, tb := range readmeTables() {
		begin := "<!-- BEGIN " + tb[0] + " table: generated, go test ./sim/scene -run TestREADMETables -update -->\n"
		end := "<!-- END " + tb[0] + " table -->"
		i := strings.Index(text, begin)
		j := strings.Index(text, end)
		if i < 0 || j < i {
			t.Errorf("README.md has no %q … %q block", begin, end)
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
		t.Errorf("README.md's %s table differs from the generated one; run go test ./sim/scene -run TestREADMETables -update\ngot:\n%s\nwant:\n%s", tb[0], got, tb[1])
	}
	if *update {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
