package geom

import (
	"math"

	"drape/sim/buf"
	"drape/sim/parallel"
)

// DisplaySpread is the default width of DisplayCurvature's smoothing as a
// fraction of the cloth's size: σ = DisplaySpread·√A, with A the mesh's
// area (m²), so σ ≈ 13 cm on the 1.6 m tablecloth and ≈ 17 cm on the
// 2.46 m × 1.8 m curtain, whatever the local edge length.
//
// It was chosen by measurement (docs/look.md): the colour roughness, the
// 90th percentile over vertices of the mean absolute difference per RGB
// channel between a vertex's colour and its one-ring neighbours' mean
// colour, over 255, with target ≤ 0.08, on `drape run --format ply` frames
// of tablecloth at 3 s, sphere-adaptive at 4 s and curtain-adaptive at 8 s,
// and the worst curtain-adaptive frame while it is being gathered
// (5.5–6.5 s):
//
//	σ/√A   tablecloth  sphere-adaptive  curtain-adaptive  (gathering)
//	raw       0.250        0.219            0.245
//	0.04      0.026        0.072            0.085            0.191
//	0.06      0.019        0.048            0.075            0.115
//	0.08      0.016        0.032            0.046            0.076
//
// What is left is on the adaptive meshes' coarse vertices (edges of 6–12
// cm), where the folds themselves change colour from one vertex to the
// next. 0.08 is the narrowest width that keeps every frame measured under
// the target, and still shows the tablecloth's folds, about 15 cm apart.
const DisplaySpread = 0.08

// maxDisplayCells caps the nodes of DisplayCurvature's grid for one
// connected piece of cloth; beyond it the cells grow, and with them the
// smoothing (see DisplayCurvature). The default σ needs about 4·A/σ² ≈
// 600 nodes for a square sheet.
const maxDisplayCells = 1 << 18

// DisplayWorkspace holds the scratch of DisplayCurvature, so that repeated
// calls on meshes of similar size allocate nothing. The zero value is
// ready to use; a workspace must not be used by two calls at once.
type DisplayWorkspace struct {
	area   []float64    // per face slot: a third of its world area, m²
	mass   []float64    // lumped area per vertex slot, m²
	parent []int32      // union-find forest over vertex slots
	start  []int32      // slots of the piece rooted at r: order[start[r]:start[r+1]]
	order  []int32      // live vertex slots grouped by piece
	at     [][3]float64 // per vertex of the piece: its coordinates, m
	node   []int32      // per vertex of the piece: the lowest node of its cell
	frac   [][3]float64 // per vertex of the piece: its place in the cell, 0…1 per axis
	grid   [][2]float64 // per node: Σ weight·a·h, Σ weight·a
	line   [][2]float64 // one grid line, for the blur
	kern   []float64    // blur kernel, offsets 0…R
}

// DisplayCurvature returns in out[i] the display mean curvature of vertex
// slot i, 1/m: the raw mean curvature h (MeanCurvature) averaged with
// Gaussian weights of width σ (m) over the cloth's material space, weighted
// by area,
//
//	u_i = Σ_j G(X_i − X_j)·a_j·h_j / Σ_j G(X_i − X_j)·a_j,   G(d) = exp(−|d|²/2σ²),
//
// over the vertices j of i's connected piece of cloth, with X the material
// (rest) coordinates and a_j the lumped area (a third of each incident
// face's world area). It is what the viewer colours and the PLY export
// writes as curvature_display; the simulation's refinement criterion keeps
// using h. sigma ≤ 0 or NaN selects the default, σ = DisplaySpread·√A with
// A the mesh's area.
//
// Why this average: the area weights make u independent of the mesh (a
// fine region's many vertices weigh what a coarse region's few do, so a
// coarse–fine junction of the adaptive mesh is not seen), and since
// Σ_j a_j·h_j over a region approximates ∫H dA, the large errors of the
// pointwise H at irregular vertices (64–107 % at the junctions of
// TestDisplayCurvatureKnownShapes) average out. Distances are taken in
// material space because cloth deforms almost isometrically: there they
// are the geodesic distances along the cloth (up to its strain), so two
// layers that touch, or the two sides of a fold, do not mix, whereas a
// world-space radius would mix them. The width is tied to the cloth's
// size, not to its edge length, so that the same fold reads the same on a
// coarse and on a fine mesh.
//
// Evaluation: normalized convolution (Knutsson & Westin 1993, "Normalized
// and differential convolution", CVPR) on a regular grid of cell c = σ/2
// over the piece's material bounding box: a·h and a are splatted to the
// grid nodes with bilinear weights, both are blurred by a separable
// Gaussian (truncated at 3 standard deviations) and read back bilinearly,
// and their ratio is u. Splatting and reading back each widen the kernel
// by a hat function of variance c²/6 per axis, so the blur's variance is
// σ² − c²/3. Near the cloth's boundary the ratio renormalises over the
// cloth that is there: a constant h is kept exactly everywhere.
//
// Cost: O(vertices + faces) and a grid of about 4·A/σ² nodes (600 for a
// square sheet): BenchmarkDisplayCurvature measures it at the cost of
// MeanCurvature on 2 cores (0.41 against 0.39 ms for 5050 triangles, 2.0
// against 1.8 ms for 22140) and 2.5 times it on 16, where MeanCurvature
// parallelises better (0.65 against 0.24 ms, 1.85 against 0.73 ms): the
// splatting and the grouping into pieces are serial. A closed surface on
// the 3-D grid costs 4 times MeanCurvature (1.2–1.4 ms for 5120
// triangles). An implicit diffusion of h with the cotangent Laplacian
// (Desbrun et al. 1999) to the same width was tried first: its colours
// measured 0.015, 0.044 and 0.066 on the three frames, but its conjugate-
// gradient iterations grow with σ over the shortest edge and it cost 13
// (2 cores) to 100 (16 cores) times MeanCurvature, 30 ms on the curtain's
// 22140 triangles, twice a step (docs/look.md).
//
// Degenerate cases: a piece whose material coordinates span no area (a
// mesh built by NewSurfaceMesh) is averaged over world distance instead,
// on a 3-D grid, where layers closer than about 3σ do mix. A piece larger
// than maxDisplayCells cells of σ/2 gets larger cells, and the smoothing
// then widens to about the cell size. Dead slots and vertices in no face
// get 0. A NaN in h spreads over about 3σ. out must
// have len(out) ≥ len(m.Pos) and h len(h) ≥ len(m.Pos); it panics
// otherwise. out may be h.
func (w *DisplayWorkspace) DisplayCurvature(m *Mesh, h []float64, sigma float64, out []float64) {
	nv := len(m.Pos)
	if len(out) < nv || len(h) < nv {
		panic("sim: DisplayCurvature: len(out) or len(h) < len(m.Pos)")
	}
	area := w.lump(m)
	if !(sigma > 0) {
		sigma = DisplaySpread * math.Sqrt(area)
	}
	w.pieces(m)
	for r := range nv {
		if w.start[r+1] > w.start[r] {
			w.smooth(m, h, sigma, w.order[w.start[r]:w.start[r+1]], out)
		}
	}
	for v := range nv {
		if !m.VertAlive[v] {
			out[v] = 0
		}
	}
}

// DisplayCurvature is DisplayWorkspace.DisplayCurvature with a throw-away
// workspace.
func DisplayCurvature(m *Mesh, h []float64, sigma float64, out []float64) {
	var w DisplayWorkspace
	w.DisplayCurvature(m, h, sigma, out)
}

// lump fills mass with a third of the world area of every live face
// around each vertex slot and returns the total area.
func (w *DisplayWorkspace) lump(m *Mesh) float64 {
	nv, nf := len(m.Pos), len(m.Tris)
	w.area = buf.Grow(w.area, nf)
	parallel.ForChunks(nf, func(_, lo, hi int) {
		for f := lo; f < hi; f++ {
			if t := m.Tris[f]; m.FaceAlive(f) {
				w.area[f] = TriangleArea(m.Pos[t[0]], m.Pos[t[1]], m.Pos[t[2]]) / 3
			}
		}
	})
	w.mass = buf.Grow(w.mass, nv)
	clear(w.mass)
	total := 0.0
	for f, t := range m.Tris {
		if m.FaceAlive(f) {
			a := w.area[f]
			w.mass[t[0]] += a
			w.mass[t[1]] += a
			w.mass[t[2]] += a
			total += 3 * a
		}
	}
	return total
}

// pieces groups the live vertex slots by connected piece of cloth (vertices
// joined by faces): the piece rooted at slot r is order[start[r]:start[r+1]],
// empty unless r is a root.
func (w *DisplayWorkspace) pieces(m *Mesh) {
	nv := len(m.Pos)
	w.parent = buf.Grow(w.parent, nv)
	for v := range w.parent {
		w.parent[v] = int32(v)
	}
	find := func(v int32) int32 {
		for w.parent[v] != v {
			w.parent[v] = w.parent[w.parent[v]] // path halving
			v = w.parent[v]
		}
		return v
	}
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		for _, v := range t[1:] {
			if a, b := find(t[0]), find(v); a != b {
				w.parent[max(a, b)] = min(a, b)
			}
		}
	}
	w.start = buf.Grow(w.start, nv+1)
	clear(w.start)
	for v := range nv {
		if m.VertAlive[v] {
			w.start[find(int32(v))+1]++
		}
	}
	for v := range nv {
		w.start[v+1] += w.start[v]
	}
	w.order = buf.Grow(w.order, int(w.start[nv]))
	// Point every live vertex straight at its root, then fill order
	// through one cursor per piece.
	for v := range nv {
		if m.VertAlive[v] {
			w.parent[v] = find(int32(v))
		}
	}
	next := w.start[:nv:nv] // reuse start as cursors, shifted back below
	for v := range nv {
		if m.VertAlive[v] {
			r := w.parent[v]
			w.order[next[r]] = int32(v)
			next[r]++
		}
	}
	// next[r] (= start[r]) now holds the end of piece r, which is where
	// piece r+1 starts; shift back to restore the starts.
	for v := nv; v > 0; v-- {
		w.start[v] = w.start[v-1]
	}
	w.start[0] = 0
}

// smooth writes u (DisplayCurvature) to out for the vertex slots of one
// piece.
func (w *DisplayWorkspace) smooth(m *Mesh, h []float64, sigma float64, verts []int32, out []float64) {
	// Material coordinates, or world ones for a piece without material
	// area.
	w.at = buf.Grow(w.at, len(verts))
	rlo, rhi := m.Rest[verts[0]], m.Rest[verts[0]]
	for _, v := range verts {
		r := m.Rest[v]
		rlo = Vec2{min(rlo.X, r.X), min(rlo.Y, r.Y)}
		rhi = Vec2{max(rhi.X, r.X), max(rhi.Y, r.Y)}
	}
	world := !(rhi.X > rlo.X && rhi.Y > rlo.Y)
	var box [parallel.Chunks][2][3]float64 // per piece of the loop: lowest and highest coordinates
	parallel.ForChunks(len(verts), func(piece, from, to int) {
		b := [2][3]float64{{math.Inf(1), math.Inf(1), math.Inf(1)}, {math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
		for i := from; i < to; i++ {
			v := verts[i]
			x := [3]float64{m.Rest[v].X, m.Rest[v].Y, 0}
			if world {
				x = [3]float64{m.Pos[v].X, m.Pos[v].Y, m.Pos[v].Z}
			}
			w.at[i] = x
			for k := range 3 {
				b[0][k], b[1][k] = min(b[0][k], x[k]), max(b[1][k], x[k])
			}
		}
		box[piece] = b
	})
	lo, hi := w.at[0], w.at[0]
	for _, b := range box {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], b[0][k]), max(hi[k], b[1][k])
		}
	}
	c := sigma / 2
	var n [3]int
	for {
		cells := 1
		for k := range 3 {
			n[k] = 1 // an axis without extent is one node thick
			if hi[k] > lo[k] {
				n[k] = int((hi[k]-lo[k])/c) + 2
			}
			cells *= n[k]
		}
		if cells <= maxDisplayCells {
			break
		}
		c *= 1.25
	}
	w.grid = buf.Grow(w.grid, n[0]*n[1]*n[2])
	clear(w.grid)
	// Each vertex lies in the cell whose lowest node is node[i]; its
	// trilinear weight on the corner with upper bits u (bit k: the upper
	// node along axis k, only on axes with more than one node) is
	// Π_k (u_k ? f_k : 1 − f_k).
	stride := [3]int{1, n[0], n[0] * n[1]}
	var offs [8]int
	var bits [8]int
	corners := 0
	for u := range 8 {
		ok := true
		o := 0
		for k := range 3 {
			if u>>k&1 == 1 {
				ok = ok && n[k] > 1
				o += stride[k]
			}
		}
		if ok {
			offs[corners], bits[corners] = o, u
			corners++
		}
	}
	w.node = buf.Grow(w.node, len(verts))
	w.frac = buf.Grow(w.frac, len(verts))
	parallel.ForChunks(len(verts), func(_, from, to int) {
		for i := from; i < to; i++ {
			node := 0
			var f [3]float64
			for k := range 3 {
				if n[k] > 1 {
					fx := (w.at[i][k] - lo[k]) / c
					i0 := min(int(fx), n[k]-2)
					f[k] = fx - float64(i0)
					node += i0 * stride[k]
				}
			}
			w.node[i], w.frac[i] = int32(node), f
		}
	})
	weight := func(i, j int) float64 {
		wt := 1.0
		for k := range 3 {
			if n[k] > 1 {
				if bits[j]>>k&1 == 1 {
					wt *= w.frac[i][k]
				} else {
					wt *= 1 - w.frac[i][k]
				}
			}
		}
		return wt
	}
	for i, v := range verts {
		ah, a := w.mass[v]*h[v], w.mass[v]
		for j := range corners {
			g := &w.grid[int(w.node[i])+offs[j]]
			wt := weight(i, j)
			g[0] += wt * ah
			g[1] += wt * a
		}
	}
	if s := math.Sqrt(math.Max(0, sigma*sigma-c*c/3)) / c; s > 0 {
		w.blur(n, s)
	}
	parallel.ForChunks(len(verts), func(_, from, to int) {
		for i := from; i < to; i++ {
			var num, den float64
			for j := range corners {
				g := w.grid[int(w.node[i])+offs[j]]
				wt := weight(i, j)
				num += wt * g[0]
				den += wt * g[1]
			}
			v := verts[i]
			out[v] = 0
			if den > 0 {
				out[v] = num / den
			}
		}
	})
}

// blur convolves the grid of n nodes along each axis that has more than
// one node with the Gaussian of standard deviation s (in cells),
// truncated at ⌈3s⌉ cells, treating nodes outside the grid as empty.
func (w *DisplayWorkspace) blur(n [3]int, s float64) {
	r := int(math.Ceil(3 * s))
	w.kern = buf.Grow(w.kern, r+1)
	for k := range w.kern {
		w.kern[k] = math.Exp(-float64(k*k) / (2 * s * s))
	}
	stride := [3]int{1, n[0], n[0] * n[1]}
	for axis := range 3 {
		if n[axis] < 2 {
			continue
		}
		l := n[axis]
		w.line = buf.Grow(w.line, l)
		// Every line along axis starts at a node whose coordinate on axis
		// is 0.
		for base := range n[0] * n[1] * n[2] {
			if (base/stride[axis])%l != 0 {
				continue
			}
			for i := range l {
				w.line[i] = w.grid[base+i*stride[axis]]
			}
			for i := range l {
				var acc [2]float64
				for j := max(0, i-r); j <= min(l-1, i+r); j++ {
					g := w.kern[abs(i-j)]
					acc[0] += g * w.line[j][0]
					acc[1] += g * w.line[j][1]
				}
				w.grid[base+i*stride[axis]] = acc
			}
		}
	}
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
