package headless

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"drape/sim/adapt"
	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/meshio"
	"drape/sim/resample"
	"drape/sim/scene"
)

// This file holds "drape run --cache": an adaptive run exported on a mesh
// of fixed topology, as one OBJ of that mesh and one point cache whose
// every frame is the run's surface sampled at the mesh's material
// coordinates (package resample). The files, in --out DIR:
//
//	cache.obj          the fixed mesh at frame 0 (vt: material coordinates, m)
//	cache.pc2|mdd      its positions, frame after frame (meshio.PointCacheWriter)
//	cache.json         CacheManifest: what tools/blender/load_cache.py reads
//
// Axes: the cache holds the same coordinates as the OBJ's v lines, drape's
// world in metres with Y up, so any tool that reads the OBJ and the cache
// alike (Houdini, Maya: Y up) lines them up. Blender is Z up: its OBJ
// importer turns Y up into Z up by default; load_cache.py imports the OBJ
// as it is and stands the object up with a rotation of +90° about X
// instead, so that the Mesh Cache modifier works in the OBJ's frame
// (docs/export.md).

// Cache-mesh names of RunOptions.CacheMesh; anything else is an OBJ file.
const (
	CacheMeshGMax = "gmax" // the scene's base mesh refined uniformly to g_max
	CacheMeshBase = "base" // the scene's base mesh
)

// cacheTolRel is how far outside the cloth, as a fraction of its material
// diagonal, a vertex of a user's cache mesh may lie: it then takes the
// nearest point of the cloth's edge (resample.New). 0.1 % covers
// material coordinates that went through a file with 6 decimals.
const cacheTolRel = 1e-3

// cacheTolExact is that fraction for the meshes drape makes itself, which
// lie on the cloth to round-off.
const cacheTolExact = 1e-9

// CacheManifest is cache.json: what a point cache holds and how to play it.
type CacheManifest struct {
	Scene     string  `json:"scene"`
	Mesh      string  `json:"mesh"`       // the fixed mesh, OBJ, relative to the manifest
	Cache     string  `json:"cache"`      // the point cache, relative to the manifest
	Format    string  `json:"format"`     // "pc2" or "mdd"
	CacheMesh string  `json:"cache_mesh"` // gmax, base or the OBJ given; "own" when the run wrote its own mesh
	Vertices  int     `json:"vertices"`
	Frames    int     `json:"frames"`
	FPS       float64 `json:"fps"` // frames per simulated second
	Dt        float64 `json:"dt"`  // s per step
	// Steps is the step whose state each frame holds: frame k is taken
	// after step round(k/(fps·dt)), at time Steps[k]·dt.
	Steps []int  `json:"steps"`
	Axes  string `json:"axes"` // "y_up": the OBJ's frame, drape's world in m
}

// cacheExport writes the point cache of one run.
type cacheExport struct {
	dir    string
	man    CacheManifest
	sim    *cloth.Sim
	own    []int32           // live vertex slots of the run's own mesh, in WriteOBJ's order, when it is the cache mesh
	sample *resample.Sampler // otherwise: the cache mesh's material points
	pos    []geom.Vec3       // one frame
	steps  []int             // the step of each frame planned
	file   *os.File
	w      *meshio.PointCacheWriter
	now    func() time.Time
	start  time.Time     // when the export began
	spent  time.Duration // wall time in the export: mesh, sampling, writing
}

// newCacheExport prepares the cache of a run of steps steps of s, built
// from sc: it makes the fixed mesh (o.CacheMesh) and opens the cache file
// in o.Out. The first frame is written by frame(0).
func newCacheExport(o RunOptions, sc *scene.Scene, s *cloth.Sim, steps int) (*cacheExport, error) {
	c := &cacheExport{dir: o.Out, sim: s, now: o.Now}
	if c.now == nil {
		c.now = time.Now
	}
	c.start = c.now()
	defer c.addSpent(c.start)
	dt := s.Params().Dt
	var err error
	if c.steps, err = frameSteps(steps, dt, o.FPS); err != nil {
		return nil, err
	}
	n := len(c.steps)
	m, name, err := cacheMesh(o.CacheMesh, sc, s)
	if err != nil {
		return nil, err
	}
	if m == nil {
		for v, alive := range s.Mesh.VertAlive {
			if alive {
				c.own = append(c.own, int32(v))
			}
		}
		c.pos = make([]geom.Vec3, len(c.own))
	} else {
		var pts []geom.Vec2
		for v, alive := range m.VertAlive {
			if alive {
				pts = append(pts, m.Rest[v])
			}
		}
		lo, hi := restBounds(s.Mesh)
		tol := cacheTolExact
		if name != CacheMeshGMax && name != CacheMeshBase {
			tol = cacheTolRel
		}
		c.sample = resample.New(pts, tol*hi.Sub(lo).Norm())
		c.pos = make([]geom.Vec3, len(pts))
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("creating cache directory: %w", err)
	}
	c.man = CacheManifest{
		Scene: sc.Name, Mesh: "cache.obj", Cache: "cache." + o.Cache.String(), Format: o.Cache.String(),
		CacheMesh: name, Vertices: len(c.pos), FPS: o.FPS, Dt: dt, Axes: "y_up",
	}
	// The OBJ holds the fixed mesh at frame 0.
	if err := c.positions(); err != nil {
		return nil, err
	}
	if m == nil {
		m = s.Mesh
	} else {
		k := 0
		for v, alive := range m.VertAlive {
			if alive {
				m.Pos[v] = c.pos[k]
				k++
			}
		}
	}
	if err := writeOBJFile(filepath.Join(o.Out, c.man.Mesh), m); err != nil {
		return nil, err
	}
	if c.file, err = os.Create(filepath.Join(o.Out, c.man.Cache)); err != nil {
		return nil, fmt.Errorf("writing point cache: %w", err)
	}
	if c.w, err = meshio.NewPointCacheWriter(c.file, o.Cache, len(c.pos), n); err != nil {
		c.file.Close()
		return nil, err
	}
	return c, nil
}

// frameSteps returns the step whose state each frame of a cache at fps
// frames per second holds, for a run of steps steps of dt seconds: frame
// k, due at k/fps, takes the nearest step, round(k/(fps·dt)), so its time
// is off by dt/2 at most; frames run from step 0 while k/fps ≤ steps·dt.
// It returns an error for a rate above one frame per step.
func frameSteps(steps int, dt, fps float64) ([]int, error) {
	perStep := fps * dt // frames per step
	if !(fps > 0) || !(dt > 0) || perStep > 1+1e-9 {
		return nil, fmt.Errorf("--fps %g: want a rate in (0, %g], one frame per step of %g s at most", fps, 1/dt, dt)
	}
	out := make([]int, int(math.Floor(float64(steps)*perStep+1e-9))+1)
	for k := range out {
		out[k] = min(steps, int(math.Round(float64(k)/perStep)))
	}
	return out, nil
}

// cacheMesh returns the fixed mesh that spec names for a run of s built
// from sc, and the name the manifest gives it; a nil mesh (named "own")
// when the run's own mesh is that mesh: a run that does not adapt keeps
// its topology, and its cache is its own positions.
func cacheMesh(spec string, sc *scene.Scene, s *cloth.Sim) (*geom.Mesh, string, error) {
	adaptive := s.AdaptParams().Enabled
	switch spec {
	case "", CacheMeshGMax:
		if !adaptive {
			return nil, "own", nil // no finer mesh than its own
		}
		// The topology alone, as "drape bench" refines its
		// full-resolution run (cloth.Sim.RefineUniform) but without the
		// physics: a third of the time.
		m, err := sc.BuildMesh()
		if err != nil {
			return nil, "", err
		}
		a, err := adapt.NewAdapter(m, sc.Adapt.GMax)
		if err == nil {
			err = a.RefineUniform(sc.Adapt.GMax)
		}
		if err != nil {
			return nil, "", fmt.Errorf("--cache-mesh gmax: %w", err)
		}
		return m, CacheMeshGMax, nil
	case CacheMeshBase:
		if !adaptive && (sc.Adapt == nil || !sc.Adapt.FineStart) {
			return nil, "own", nil
		}
		m, err := sc.BuildMesh()
		return m, CacheMeshBase, err
	}
	m, err := meshio.LoadOBJMaterial(spec)
	if err != nil {
		return nil, "", fmt.Errorf("--cache-mesh: %w", err)
	}
	return m, spec, nil
}

// positions fills c.pos with the surface of the run now.
func (c *cacheExport) positions() error {
	m := c.sim.Mesh
	if c.own != nil {
		for k, v := range c.own {
			c.pos[k] = m.Pos[v]
		}
		return nil
	}
	if err := c.sample.Positions(m, c.pos); err != nil {
		return fmt.Errorf("sampling the cloth at t = %g s: %w", c.sim.Time, err)
	}
	return nil
}

// frame writes the next frame if step i is its step.
func (c *cacheExport) frame(i int) error {
	k := c.w.Frames()
	if k == len(c.steps) || c.steps[k] != i {
		return nil
	}
	defer c.addSpent(c.now())
	if k > 0 { // frame 0 was sampled for the OBJ
		if err := c.positions(); err != nil {
			return err
		}
	}
	return c.w.WriteFrame(c.sim.Time, c.pos)
}

// addSpent adds the wall time since t0 to the export's.
func (c *cacheExport) addSpent(t0 time.Time) { c.spent += c.now().Sub(t0) }

// close completes the cache and writes the manifest, and returns the line
// "drape run" prints: what was written, and the export's share of the
// run's wall time.
func (c *cacheExport) close() (string, error) {
	t0 := c.now()
	err := c.w.Close()
	if cerr := c.file.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing point cache: %w", cerr)
	}
	c.man.Frames = c.w.Frames()
	c.man.Steps = c.steps[:c.man.Frames]
	if jerr := WriteJSONFile(filepath.Join(c.dir, "cache.json"), c.man); jerr != nil {
		err = errors.Join(err, jerr)
	}
	c.addSpent(t0)
	total := c.now().Sub(c.start)
	share := 0.0
	if total > 0 {
		share = 100 * float64(c.spent) / float64(total)
	}
	line := fmt.Sprintf("cache: %d frames of %d vertices (%s mesh) at %g fps in %s: %.3g s, %.1f %% of the run's %.3g s",
		c.man.Frames, c.man.Vertices, c.man.CacheMesh, c.man.FPS, filepath.Join(c.dir, c.man.Cache),
		c.spent.Seconds(), share, total.Seconds())
	return line, err
}
