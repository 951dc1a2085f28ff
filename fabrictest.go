package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"drape/sim/fabric"
)

// cmdFabricTest runs the virtual textile tests (package fabric: Peirce's
// cantilever, the Cusick drape test, the strip tensile test) on one fabric
// preset or all, and prints the tables of docs/fabrics.md.
func cmdFabricTest(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("fabric-test")
	material := fs.String("material", "all", "fabric preset `NAME` (assets/materials), or all")
	tests := fs.String("tests", "cantilever,cusick,tensile", "comma-separated `LIST` of tests: cantilever, cusick, tensile")
	meshes := fs.String("meshes", "coarse,fine,adaptive", "comma-separated `LIST` of the cantilever's meshes: coarse, fine, adaptive")
	jobs := fs.Int("jobs", 1, "presets tested at once, `N` ≥ 1 (one is fastest: each simulation already uses every core)")
	pictures := fs.String("pictures", "", "write each fabric's Cusick drape, top and side view, as `DIR`/NAME-cusick.png")
	if code := parseFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	lib, err := fabric.Builtin()
	if err != nil {
		return fail(stderr, "fabric-test", exitRuntime, err)
	}
	var presets []*fabric.Preset
	if *material == "all" {
		for _, n := range lib.Names() {
			p, _ := lib.Lookup(n)
			presets = append(presets, p)
		}
	} else {
		p, err := lib.Lookup(*material)
		if err != nil {
			return fail(stderr, "fabric-test", exitUsage, fmt.Errorf("--material: %w, or all", err))
		}
		presets = []*fabric.Preset{p}
	}
	var opts fabric.Options
	for _, t := range strings.Split(*tests, ",") {
		switch t {
		case "cantilever":
			opts.Meshes = []fabric.MeshKind{}
		case "cusick":
			opts.Cusick = true
		case "tensile":
			opts.Tensile = true
		default:
			return fail(stderr, "fabric-test", exitUsage, fmt.Errorf("--tests: unknown test %q (want cantilever, cusick, tensile)", t))
		}
	}
	if opts.Meshes != nil {
		for _, m := range strings.Split(*meshes, ",") {
			k, ok := map[string]fabric.MeshKind{"coarse": fabric.Coarse, "fine": fabric.Fine, "adaptive": fabric.Adaptive}[m]
			if !ok {
				return fail(stderr, "fabric-test", exitUsage, fmt.Errorf("--meshes: unknown mesh %q (want coarse, fine, adaptive)", m))
			}
			opts.Meshes = append(opts.Meshes, k)
		}
	}
	if *jobs < 1 {
		return fail(stderr, "fabric-test", exitUsage, fmt.Errorf("--jobs must be at least 1, got %d", *jobs))
	}
	if *pictures != "" {
		if !opts.Cusick {
			return fail(stderr, "fabric-test", exitUsage, errors.New("--pictures needs the cusick test"))
		}
		if err := os.MkdirAll(*pictures, 0o755); err != nil {
			return fail(stderr, "fabric-test", exitRuntime, err)
		}
		opts.Pictures = true
	}
	t0 := time.Now()
	rs, err := fabric.RunAll(presets, opts, *jobs)
	if err != nil {
		return fail(stderr, "fabric-test", exitRuntime, err)
	}
	fabric.Markdown(stdout, rs)
	for _, r := range rs {
		if *pictures != "" {
			file, err := r.WritePicture(*pictures)
			if err != nil {
				return fail(stderr, "fabric-test", exitRuntime, err)
			}
			fmt.Fprintf(stdout, "wrote %s\n", file)
		}
	}
	fmt.Fprintf(stdout, "%d preset(s) in %.1f s\n", len(rs), time.Since(t0).Seconds())
	return exitOK
}
