package cloth

import (
	"errors"
	"math"
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
		{"negative alpha_M", func(p *Params) { p.DampMass = -1 }, "alpha_M"},
		{"NaN alpha_K", func(p *Params) { p.DampStiff = nan }, "alpha_K"},
		{"zero dt", func(p *Params) { p.Dt = 0 }, "dt"},
		{"huge dt", func(p *Params) { p.Dt = 1 }, "dt"},
		{"tolerance 1", func(p *Params) { p.Tolerance = 1 }, "tolerance"},
		{"zero iterations", func(p *Params) { p.MaxIter = 0 }, "iteration cap"},
		{"NaN gravity", func(p *Params) { p.Gravity.Y = nan }, "gravity"},
		{"absurd gravity", func(p *Params) { p.Gravity.Y = -1e300 }, "gravity"},
		{"infinite wind", func(p *Params) { p.Wind.X = math.Inf(-1) }, "wind"},
		{"negative air drag", func(p *Params) { p.AirDrag = -1 }, "air drag"},
		{"negative drag stiffness", func(p *Params) { p.DragStiffness = -5 }, "drag stiffness"},
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
