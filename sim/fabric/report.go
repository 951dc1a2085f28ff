package fabric

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"drape/sim/cloth"
	"drape/sim/strainlimit"
)

// Result is the outcome of the three virtual textile tests on one
// preset.
type Result struct {
	Preset     *Preset
	Params     cloth.Params       // what the tests ran: DefaultParams with the preset applied
	Strain     strainlimit.Params // the preset's strain limits (the tests run without them; see Run)
	Cantilever []CantileverResult // warp and weft on each of Options.Meshes, in that order
	Cusick     CusickResult       // zero unless Options.Cusick
	Tensile    []TensileResult    // warp, weft, bias; empty unless Options.Tensile
	Elapsed    time.Duration
}

// Meshes lists the cantilever's mesh kinds in the order Run uses.
var Meshes = []MeshKind{Coarse, Fine, Adaptive}

// Options selects the tests Run runs.
type Options struct {
	Meshes   []MeshKind // the cantilever's meshes; none skips the cantilever
	Cusick   bool       // the Cusick drape test
	Tensile  bool       // the strip tensile test in warp, weft and bias
	Pictures bool       // keep the draped Cusick mesh (Result.Cusick.Mesh) for DrapePicture
}

// AllTests is every test on every mesh.
var AllTests = Options{Meshes: Meshes, Cusick: true, Tensile: true}

// Run runs the tests opts selects on preset p: the cantilever in warp and
// weft on each of opts.Meshes, the Cusick drape test and the strip
// tensile test in warp, weft and bias. The tests measure the model's
// small-strain response, so they run without the preset's strain limits,
// which only act far beyond the strains they reach (the tensile test's
// 0.2 %, the drape's ~ρ·g·r/E).
func Run(p *Preset, opts Options) (*Result, error) {
	t0 := time.Now()
	params, strain := p.Values()
	r := &Result{Preset: p, Params: params, Strain: strain}
	for _, k := range opts.Meshes {
		for _, d := range []Direction{Warp, Weft} {
			c, err := Cantilever(params, d, k)
			if err != nil {
				return nil, fmt.Errorf("material %s: cantilever %v %v: %w", p.Name, d, k, err)
			}
			r.Cantilever = append(r.Cantilever, c)
		}
	}
	if opts.Cusick {
		var err error
		if r.Cusick, err = Cusick(params); err != nil {
			return nil, fmt.Errorf("material %s: Cusick: %w", p.Name, err)
		}
		if !opts.Pictures {
			r.Cusick.Mesh = nil
		}
	}
	if opts.Tensile {
		for _, d := range []Direction{Warp, Weft, Bias} {
			t, err := Tensile(params, d)
			if err != nil {
				return nil, fmt.Errorf("material %s: tensile %v: %w", p.Name, d, err)
			}
			r.Tensile = append(r.Tensile, t)
		}
	}
	r.Elapsed = time.Since(t0)
	return r, nil
}

// SourceC returns the bending length the source's own bending stiffness
// in direction d implies, m.
func (r *Result) SourceC(d Direction) float64 {
	b := r.Preset.BendWarp
	if d == Weft {
		b = r.Preset.BendWeft
	}
	return BendingLength(b, r.Params.Density, r.Params.Gravity.Norm())
}

// CantileverErr is the largest relative error of the measured bending
// length against the one k_b implies, over every run.
func (r *Result) CantileverErr() float64 {
	var e float64
	for _, c := range r.Cantilever {
		e = math.Max(e, math.Abs(c.C/c.CExpected-1))
	}
	return e
}

// TensileErr is the largest relative error of a tensile slope.
func (r *Result) TensileErr() float64 {
	var e float64
	for _, t := range r.Tensile {
		e = math.Max(e, math.Abs(t.Slope/t.Expected-1))
	}
	return e
}

// RunAll runs Run on every preset, workers at a time, and returns the
// results in the order of presets; the errors are joined. One worker is
// the fastest on two cores (24.5 s for every preset and test, against
// 34.6 s with two): each simulation's loops already use every core through
// sim/parallel's one pool, which two runs at once contend for.
func RunAll(presets []*Preset, opts Options, workers int) ([]*Result, error) {
	out := make([]*Result, len(presets))
	errs := make([]error, len(presets))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(1, workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = Run(presets[i], opts)
			}
		}()
	}
	for i := range presets {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, errors.Join(errs...)
}

// pct formats a relative error in per cent with its sign.
func pct(x float64) string { return fmt.Sprintf("%+.1f %%", 100*x) }

// Markdown writes the results as the two tables of docs/fabrics.md: the
// cantilever (bending lengths per mesh and direction against the one k_b
// implies, and the model against the source's own per-direction
// bending), and the drape and tensile tests.
func Markdown(w io.Writer, rs []*Result) {
	fmt.Fprintln(w, "| fabric | what it is | source |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %s | %s |\n", r.Preset.Name, r.Preset.Title, strings.ReplaceAll(r.Preset.Source, "|", "\\|"))
	}
	fmt.Fprintln(w)
	if len(rs) > 0 && len(rs[0].Cantilever) > 0 {
		cantileverTable(w, rs)
	}
	if len(rs) > 0 && (rs[0].Cusick.Triangles > 0 || len(rs[0].Tensile) > 0) {
		drapeTable(w, rs)
	}
}

func cantileverTable(w io.Writer, rs []*Result) {
	fmt.Fprintln(w, "Cantilever bending length c (cm), measured (error against c = (k_b/(ρ·g))^⅓ from the preset's k_b):")
	fmt.Fprintln(w)
	fmt.Fprint(w, "| fabric | c from k_b |")
	var kinds []MeshKind
	if len(rs) > 0 {
		for i := 0; i < len(rs[0].Cantilever); i += 2 {
			kinds = append(kinds, rs[0].Cantilever[i].Mesh)
			fmt.Fprintf(w, " %s warp | %s weft |", rs[0].Cantilever[i].Mesh, rs[0].Cantilever[i].Mesh)
		}
	}
	fmt.Fprintln(w, " source's c warp / weft | fine mesh vs source, warp / weft |")
	fmt.Fprint(w, "|---|---|")
	for range kinds {
		fmt.Fprint(w, "---|---|")
	}
	fmt.Fprintln(w, "---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %.2f |", r.Preset.Name, 100*r.Cantilever[0].CExpected)
		var fine [2]float64 // the finest fixed mesh's warp and weft, for the source comparison
		for _, c := range r.Cantilever {
			fmt.Fprintf(w, " %.2f (%s) |", 100*c.C, pct(c.C/c.CExpected-1))
			if c.Mesh != Adaptive {
				fine[c.Dir] = c.C
			}
		}
		sw, sf := r.SourceC(Warp), r.SourceC(Weft)
		fmt.Fprintf(w, " %.2f / %.2f | %s / %s |\n", 100*sw, 100*sf, pct(fine[Warp]/sw-1), pct(fine[Weft]/sf-1))
	}
	fmt.Fprintln(w)
}

func drapeTable(w io.Writer, rs []*Result) {
	fmt.Fprintln(w, "Cusick drape and strip tensile tests (slopes in N/m, measured and error against the preset's modulus in that direction):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| fabric | DC | published DC | nodes | tensile warp | tensile weft | tensile bias | time |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		pub := "none found"
		if r.Preset.DC != nil {
			pub = fmt.Sprintf("%.2f (%s)", r.Preset.DC.Value, r.Preset.DC.Source)
		}
		dc, nodes := "–", "–"
		if r.Cusick.Triangles > 0 {
			dc, nodes = fmt.Sprintf("%.3f", r.Cusick.DC), fmt.Sprint(r.Cusick.Nodes)
			if !r.Cusick.Settled {
				dc += " (still moving at 6 s)"
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |", r.Preset.Name, dc, pub, nodes)
		for i := 0; i < 3; i++ {
			if i < len(r.Tensile) {
				t := r.Tensile[i]
				fmt.Fprintf(w, " %.4g (%s) |", t.Slope, pct(t.Slope/t.Expected-1))
			} else {
				fmt.Fprint(w, " – |")
			}
		}
		fmt.Fprintf(w, " %.1f s |\n", r.Elapsed.Seconds())
	}
}

// WritePicture writes the draped Cusick specimen of r (kept with
// Options.Pictures) to dir/NAME-cusick.png: top and side view
// (DrapePicture), 240 pixels high.
func (r *Result) WritePicture(dir string) (string, error) {
	if r.Cusick.Mesh == nil {
		return "", fmt.Errorf("material %s: no draped mesh kept", r.Preset.Name)
	}
	file := filepath.Join(dir, r.Preset.Name+"-cusick.png")
	f, err := os.Create(file)
	if err != nil {
		return "", err
	}
	err = DrapePicture(f, r.Cusick.Mesh, 240)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return file, err
}
