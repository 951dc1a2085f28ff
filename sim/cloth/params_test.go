package cloth

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"drape/sim/internal/simtest"
)

func TestParamsValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatalf("DefaultParams: %v", err)
	}
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		edit func(*Params)
		want string // substring of the error
	}{
		{"NaN E_x", func(p *Params) { p.YoungX = nan }, "E_x"},
		{"negative E_y", func(p *Params) { p.YoungY = -1 }, "E_y"},
		{"zero E_s", func(p *Params) { p.Shear = 0 }, "E_s"},
		{"infinite E_x", func(p *Params) { p.YoungX = math.Inf(1) }, "E_x"},
		{"huge E_x", func(p *Params) { p.YoungX = 1e30 }, "E_x"},
		{"negative nu_xy", func(p *Params) { p.PoissXY = -0.1 }, "nu_xy"},
		{"nu_yx of 1", func(p *Params) { p.PoissYX = 1 }, "nu_yx"},
		{"indefinite C", func(p *Params) { p.YoungX, p.YoungY, p.PoissXY, p.PoissYX = 1000, 10, 0.9, 0.9 }, "positive definite"},
		{"zero density", func(p *Params) { p.Density = 0 }, "density"},
		{"NaN bending", func(p *Params) { p.Bending = nan }, "bending"},
		{"negative bending", func(p *Params) { p.Bending = -1 }, "bending"},
		{"negative alpha_M", func(p *Params) { p.DampMass = -1 }, "damp_mass"},
		{"NaN alpha_K", func(p *Params) { p.DampStiff = nan }, "damp_stiff"},
		{"zero dt", func(p *Params) { p.Dt = 0 }, "dt"},
		{"huge dt", func(p *Params) { p.Dt = 1 }, "dt"},
		{"tolerance 1", func(p *Params) { p.Tolerance = 1 }, "tolerance"},
		{"zero iterations", func(p *Params) { p.MaxIter = 0 }, "max_iter"},
		{"NaN gravity", func(p *Params) { p.Gravity.Y = nan }, "gravity"},
		{"absurd gravity", func(p *Params) { p.Gravity.Y = -1e300 }, "gravity"},
		{"infinite wind", func(p *Params) { p.Wind.X = math.Inf(-1) }, "wind"},
		{"negative air drag", func(p *Params) { p.AirDrag = -1 }, "air_drag"},
		{"negative drag stiffness", func(p *Params) { p.DragStiffness = -5 }, "drag_stiffness"},
	} {
		p := DefaultParams()
		tc.edit(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got=%v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestSetParamsKeepsOldOnError checks that a rejected parameter set leaves
// the running simulation untouched and that an accepted one takes effect at
// the next step without rebuilding the mesh.
func TestSetParamsKeepsOldOnError(t *testing.T) {
	m := simtest.Grid(t, 1, 1, 4, 4, 0, 1)
	s, err := New(m, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	bad := DefaultParams()
	bad.Density = math.NaN()
	if err := s.SetParams(bad); err == nil {
		t.Fatal("SetParams accepted NaN density")
	}
	if got := s.Params().Density; got != DefaultParams().Density {
		t.Errorf("density after rejected SetParams: got=%v, want=%v", got, DefaultParams().Density)
	}
	heavy := DefaultParams()
	heavy.Density = 0.3
	if err := s.SetParams(heavy); err != nil {
		t.Fatal(err)
	}
	if got, want := s.TotalMass(), 0.3; math.Abs(got-want) > 1e-12 {
		t.Errorf("total mass after density change: got=%v, want=%v", got, want)
	}
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// TestAdaptWithoutValidSettings checks that Adapt reports, rather than
// silently skips, a simulation without valid adaptivity settings.
func TestAdaptWithoutValidSettings(t *testing.T) {
	m := simtest.Grid(t, 1, 1, 4, 4, 0, 1)
	s, err := New(m, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Adapt(); err == nil || !strings.Contains(err.Error(), "SetAdaptParams") {
		t.Errorf("Adapt without settings: got err=%v, want one naming SetAdaptParams", err)
	}
	if err := s.SetAdaptParams(DefaultAdaptParams()); err != nil {
		t.Fatal(err)
	}
	s.ad.p.CoarsenFrac = 2 // as if corrupted after validation
	if _, err := s.Adapt(); err == nil || !strings.Contains(err.Error(), "coarsen") {
		t.Errorf("Adapt with c = 2: got err=%v, want one naming coarsen", err)
	}
	s.ad.p = DefaultAdaptParams()
	if _, err := s.Adapt(); err != nil {
		t.Errorf("Adapt with the defaults: %v", err)
	}
}

// TestTablesMatchStructs checks that every field of Params and
// AdaptParams is in its table: setting each table field to a value off its
// default must change the struct, and the defaults must validate and
// survive an Encode/Decode round trip bit for bit.
func TestTablesMatchStructs(t *testing.T) {
	p := DefaultParams()
	p.Gravity.X, p.Wind.Z, p.AirDrag = 0.1, -1.0/3, 1.0/7
	data, err := ParamTable.Encode(&p)
	if err != nil {
		t.Fatal(err)
	}
	var q Params
	if err := ParamTable.Decode(data, &q); err != nil {
		t.Fatal(err)
	}
	if q != p {
		t.Errorf("Params round trip: got=%+v, want=%+v", q, p)
	}
	if n, want := len(ParamTable), reflect.TypeOf(Params{}).NumField(); n != want {
		t.Errorf("ParamTable has %d fields, Params %d", n, want)
	}
	if n, want := len(AdaptTable), reflect.TypeOf(AdaptParams{}).NumField(); n != want {
		t.Errorf("AdaptTable has %d fields, AdaptParams %d", n, want)
	}
	a := DefaultAdaptParams()
	a.Base = 1.0 / 3
	data, err = json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var b AdaptParams
	if err := json.Unmarshal(data, &b); err != nil || b != a {
		t.Errorf("AdaptParams JSON round trip: got=%+v err=%v, want=%+v", b, err, a)
	}
	if err := json.Unmarshal([]byte(`{"c": 0.5}`), &b); err == nil || !strings.Contains(err.Error(), `unknown key "c"`) || !strings.Contains(err.Error(), "coarsen") {
		t.Errorf("unknown key: got err=%v, want one naming it and the valid keys", err)
	}
	if err := DefaultAdaptParams().Validate(); err != nil {
		t.Errorf("DefaultAdaptParams: %v", err)
	}
}
