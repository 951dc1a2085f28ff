package param

import (
	"errors"
	"math"
	"strings"
	"testing"

	"drape/sim/geom"
)

type demo struct {
	A  float64
	N  int
	On bool
	G  geom.Vec3
}

var demoTable = Table[demo]{
	{Key: "a", Unit: "m", Default: 0.5, Min: 0, Max: 1, Float: func(d *demo) *float64 { return &d.A }},
	{Key: "n", Default: 3, Min: 1, Max: 10, Int: func(d *demo) *int { return &d.N }},
	{Key: "on", Default: 1, Bool: func(d *demo) *bool { return &d.On }},
	{Key: "g", DefVec: [3]float64{0, -9.81, 0}, Min: 0, Max: 100, Vec: func(d *demo) *geom.Vec3 { return &d.G }},
}

func TestTable(t *testing.T) {
	var d demo
	demoTable.SetDefaults(&d)
	if want := (demo{0.5, 3, true, geom.Vec3{Y: -9.81}}); d != want {
		t.Fatalf("SetDefaults: got=%+v, want=%+v", d, want)
	}
	if err := demoTable.Validate(&d); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		json string
		want string // substring of the error; "" for none
	}{
		{`{"a": 0.25}`, ""},
		{`{"b": 1}`, `unknown key "b" (valid keys: a, n, on, g)`},
		{`{"a": 1, "zz": 2}`, `unknown key "zz"`},
		{`{"n": 1.5}`, "n: want an integer"},
		{`{"on": 1}`, "on: want true or false"},
		{`{"g": [1, 2]}`, ""}, // encoding/json fills the first two
		{`{"g": "down"}`, "g: want an array of 3 numbers"},
		{`[1]`, "cannot unmarshal array"},
	} {
		d := demo{}
		err := demoTable.Decode([]byte(tc.json), &d)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Decode(%s): got err=%v, want %q", tc.json, err, tc.want)
		}
	}
	for _, tc := range []struct {
		edit func(*demo)
		want string
	}{
		{func(d *demo) { d.A = 2 }, "a must be in [0, 1] m, got 2"},
		{func(d *demo) { d.A = math.NaN() }, "a must be in"},
		{func(d *demo) { d.N = 0 }, "n must be in [1, 10], got 0"},
		{func(d *demo) { d.G.X = 1e3 }, "|g| must be in [0, 100]"},
	} {
		d := demo{}
		demoTable.SetDefaults(&d)
		tc.edit(&d)
		err := demoTable.Validate(&d)
		var re *RangeError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate: got err=%v, want a RangeError with %q", err, tc.want)
		}
	}
	// Round trip, bit for bit, with values that need all 17 digits.
	d = demo{A: 1.0 / 3, N: 7, On: false, G: geom.Vec3{X: math.Nextafter(1, 2), Y: -0.1, Z: 5e-324}}
	data, err := demoTable.Encode(&d)
	if err != nil {
		t.Fatal(err)
	}
	var e demo
	demoTable.SetDefaults(&e)
	if err := demoTable.Decode(data, &e); err != nil || e != d {
		t.Errorf("round trip through %s: got=%+v err=%v, want=%+v", data, e, err, d)
	}
	d.A = math.Inf(1)
	if _, err := demoTable.Encode(&d); err == nil || !strings.Contains(err.Error(), "a:") {
		t.Errorf("Encode(+Inf): got err=%v, want one naming a", err)
	}
	md := demoTable.Markdown()
	if !strings.Contains(md, "| `a` | m | 0.5 | [0, 1] |") || !strings.Contains(md, "| `g` | – | [0, -9.81, 0] | norm in [0, 100] |") {
		t.Errorf("Markdown:\n%s", md)
	}
}

// TestEncodeKeys checks that EncodeKeys writes exactly the kept fields,
// in table order, and that they decode back to the same value.
func TestEncodeKeys(t *testing.T) {
	var d demo
	demoTable.SetDefaults(&d)
	d.A, d.N = 0.25, 7
	for _, tc := range []struct {
		keep func(string) bool
		want string
	}{
		{nil, `{"a":0.25,"n":7,"on":true,"g":[0,-9.81,0]}`},
		{func(k string) bool { return k == "n" || k == "g" }, `{"n":7,"g":[0,-9.81,0]}`},
		{func(string) bool { return false }, `{}`},
	} {
		got, err := demoTable.EncodeKeys(&d, tc.keep)
		if err != nil || string(got) != tc.want {
			t.Errorf("EncodeKeys: got=%s, %v, want=%s", got, err, tc.want)
		}
		back := d
		if err := demoTable.Decode(got, &back); err != nil || back != d {
			t.Errorf("decoding %s over the same value: got=%+v, %v, want=%+v", got, back, err, d)
		}
	}
}
