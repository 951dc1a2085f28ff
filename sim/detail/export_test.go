package detail

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"drape/sim/geom"
)

func TestWriteSurface(t *testing.T) {
	det := NewDetailer(DefaultParams())
	var s Surface
	if _, err := det.Update(compressX(sheet(t, 1, 0.5, 4, 2), 0.1), &s); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		format string
		rest   []geom.Vec2
		want   []string
	}{
		{"ply", nil, []string{fmt.Sprintf("element vertex %d", len(s.Pos)), fmt.Sprintf("element face %d", len(s.Tris))}},
		{"obj", det.Rest(), nil},
	} {
		var buf bytes.Buffer
		if err := WriteSurface(&buf, &s, tc.rest, tc.format); err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		text := buf.String()
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: missing %q", tc.format, w)
			}
		}
		if tc.format == "obj" {
			nv, nf := 0, 0
			sc := bufio.NewScanner(&buf)
			for sc.Scan() {
				switch {
				case strings.HasPrefix(sc.Text(), "v "):
					nv++
				case strings.HasPrefix(sc.Text(), "f "):
					nf++
				}
			}
			if nv != len(s.Pos) || nf != len(s.Tris) {
				t.Errorf("obj: %d vertices, %d faces; want %d, %d", nv, nf, len(s.Pos), len(s.Tris))
			}
		}
	}
	var buf bytes.Buffer
	if err := WriteSurface(&buf, &s, nil, "stl"); err == nil {
		t.Error("unknown format: no error")
	}
	if err := WriteSurface(&buf, &Surface{}, nil, "ply"); err == nil {
		t.Error("empty surface: no error")
	}
	if err := WriteSurface(&buf, &s, det.Rest()[:3], "obj"); err == nil {
		t.Error("short rest: no error")
	}
}
