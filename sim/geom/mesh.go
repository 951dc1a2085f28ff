package geom

import (
	"fmt"
	"math"
	"slices"
)

// Mesh is a manifold triangle mesh stored as structures of arrays, with slots
// that can be freed and reused (free lists), as the adaptive mesh needs
// (Li & Volkov §4: refinement that can be reverted locally).
//
// Vertex slot i holds Pos[i], Vel[i] and Rest[i]; VertAlive[i] tells whether
// the slot is in use. Face slot f holds Tris[f] (3 vertex slots,
// counter-clockwise in material space, i.e. Rest), Adj[f] and Gen[f];
// a free face slot has Tris[f][0] < 0.
//
// Adj[f][i] is the face across edge i of f, the edge from Tris[f][i] to
// Tris[f][(i+1)%3], or −1 when that edge is on the boundary.
type Mesh struct {
	Pos       []Vec3 // world position, m
	Vel       []Vec3 // velocity, m/s
	Rest      []Vec2 // material (rest) coordinates, m; X weft, Y warp
	VertAlive []bool

	Tris [][3]int32 // 3 vertex slots per face
	Adj  [][3]int32 // face across each edge, −1 on the boundary
	Gen  []uint32   // adaptive generation and mate bits (see adapt.go); 0 for base faces

	freeVerts []int32
	freeTris  []int32
	liveVerts int
	liveTris  int
}

// FaceError reports a problem with one input face; loaders turn Face into a
// file line.
type FaceError struct {
	Face int // index into the tris slice given to NewMesh
	Msg  string
}

func (e *FaceError) Error() string { return fmt.Sprintf("face %d: %s", e.Face, e.Msg) }

// VertexError reports a problem with one input vertex.
type VertexError struct {
	Vertex int
	Msg    string
}

func (e *VertexError) Error() string { return fmt.Sprintf("vertex %d: %s", e.Vertex, e.Msg) }

// NewMesh returns a mesh with the given vertices and faces, after checking
// that it is a consistently oriented 2-manifold (possibly with boundary):
// indices in range, finite coordinates, positive material-space area for
// every face (faces must be counter-clockwise in rest), no edge shared by
// more than two faces or by two faces that use it in the same direction, and
// every vertex's faces forming a single fan. Velocities start at zero.
// It returns a *FaceError or *VertexError naming the offending input.
// Every vertex must belong to at least one face.
func NewMesh(pos []Vec3, rest []Vec2, tris [][3]int32) (*Mesh, error) {
	if len(pos) != len(rest) {
		panic("sim: NewMesh: len(pos) != len(rest)")
	}
	if len(tris) == 0 {
		return nil, fmt.Errorf("mesh has no faces")
	}
	nv := len(pos)
	for i := range pos {
		if !pos[i].IsFinite() || math.IsNaN(rest[i].X+rest[i].Y) || math.IsInf(rest[i].X+rest[i].Y, 0) {
			return nil, &VertexError{i, "coordinate is not finite"}
		}
	}
	used := make([]bool, nv)
	for f, t := range tris {
		for k := 0; k < 3; k++ {
			if t[k] < 0 || int(t[k]) >= nv {
				return nil, &FaceError{f, fmt.Sprintf("vertex index %d out of range [0,%d)", t[k], nv)}
			}
			used[t[k]] = true
		}
		if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
			return nil, &FaceError{f, "repeats a vertex"}
		}
		a := RestArea(rest[t[0]], rest[t[1]], rest[t[2]])
		scale := math.Max(rest[t[1]].Sub(rest[t[0]]).Norm2(), rest[t[2]].Sub(rest[t[0]]).Norm2())
		if !(a > 1e-12*scale) {
			if a < -1e-12*scale {
				return nil, &FaceError{f, "is clockwise in material space (faces must be counter-clockwise)"}
			}
			return nil, &FaceError{f, "has zero area (degenerate)"}
		}
		if p := pos[t[1]].Sub(pos[t[0]]).Cross(pos[t[2]].Sub(pos[t[0]])).Norm(); !(p > 1e-12*scale) {
			return nil, &FaceError{f, "has zero area in world space (degenerate)"}
		}
	}
	for i, u := range used {
		if !u {
			return nil, &VertexError{i, "belongs to no face"}
		}
	}
	m := &Mesh{
		Pos:       append([]Vec3(nil), pos...),
		Vel:       make([]Vec3, nv),
		Rest:      append([]Vec2(nil), rest...),
		VertAlive: make([]bool, nv),
		Tris:      append([][3]int32(nil), tris...),
		Adj:       make([][3]int32, len(tris)),
		Gen:       make([]uint32, len(tris)),
		liveVerts: nv,
		liveTris:  len(tris),
	}
	for i := range m.VertAlive {
		m.VertAlive[i] = true
	}
	if err := m.buildAdjacency(); err != nil {
		return nil, err
	}
	if err := m.checkVertexFans(); err != nil {
		return nil, err
	}
	return m, nil
}

// NewSurfaceMesh returns a mesh of a surface that has no material space
// (Rest is all zero), such as a closed sphere: for geometry (curvature,
// normals, adaptivity tests), not for simulation. It checks that the
// faces form a consistently oriented 2-manifold, as NewMesh does, but
// neither areas nor rest orientation.
func NewSurfaceMesh(pos []Vec3, tris [][3]int32) (*Mesh, error) {
	for f, t := range tris {
		for _, v := range t {
			if v < 0 || int(v) >= len(pos) {
				return nil, &FaceError{f, fmt.Sprintf("vertex index %d out of range [0,%d)", v, len(pos))}
			}
		}
	}
	m := &Mesh{
		Pos: slices.Clone(pos), Vel: make([]Vec3, len(pos)), Rest: make([]Vec2, len(pos)),
		VertAlive: make([]bool, len(pos)),
		Tris:      slices.Clone(tris), Adj: make([][3]int32, len(tris)), Gen: make([]uint32, len(tris)),
		liveVerts: len(pos), liveTris: len(tris),
	}
	for i := range m.VertAlive {
		m.VertAlive[i] = true
	}
	if err := m.buildAdjacency(); err != nil {
		return nil, err
	}
	if err := m.checkVertexFans(); err != nil {
		return nil, err
	}
	return m, nil
}

// RestArea returns the signed area ½ (b−a)×(c−a) of a material-space
// triangle; positive when counter-clockwise.
func RestArea(a, b, c Vec2) float64 { return 0.5 * b.Sub(a).Cross(c.Sub(a)) }

// TriangleArea returns the area ½|(b−a)×(c−a)| of a world-space triangle.
func TriangleArea(a, b, c Vec3) float64 { return 0.5 * b.Sub(a).Cross(c.Sub(a)).Norm() }

type edgeKey struct{ a, b int32 }

// buildAdjacency fills Adj for all live faces from scratch.
func (m *Mesh) buildAdjacency() error {
	half := make(map[edgeKey]int32, 3*len(m.Tris)) // directed edge → face*3+edge
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		for i := 0; i < 3; i++ {
			k := edgeKey{t[i], t[(i+1)%3]}
			if _, dup := half[k]; dup {
				return &FaceError{f, fmt.Sprintf("edge %d–%d is used twice in the same direction (non-manifold edge or inconsistent orientation)", k.a, k.b)}
			}
			half[k] = int32(3*f + i)
		}
	}
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		for i := 0; i < 3; i++ {
			if h, ok := half[edgeKey{t[(i+1)%3], t[i]}]; ok {
				m.Adj[f][i] = h / 3
			} else {
				m.Adj[f][i] = -1
			}
		}
	}
	return nil
}

// CheckTopology rebuilds the adjacency from scratch and returns an error
// naming the first live face whose Adj differs from it (or the rebuild's
// own error), then checks that every vertex's faces form one fan; Adj is
// left as it was. Tests of mesh operations use it to check topology kept
// up to date incrementally.
func (m *Mesh) CheckTopology() error {
	saved := slices.Clone(m.Adj)
	defer copy(m.Adj, saved)
	if err := m.buildAdjacency(); err != nil {
		return err
	}
	for f := range m.Tris {
		if m.FaceAlive(f) && m.Adj[f] != saved[f] {
			return fmt.Errorf("face %d: Adj got=%v, want=%v (rebuilt)", f, saved[f], m.Adj[f])
		}
	}
	return m.checkVertexFans()
}

// checkVertexFans verifies that the faces around every vertex form one fan
// (a disc for interior vertices, a half-disc for boundary vertices).
func (m *Mesh) checkVertexFans() error {
	count := make([]int32, len(m.Pos))
	first := make([]int32, len(m.Pos)) // some face of each vertex
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		for _, v := range t {
			count[v]++
			first[v] = int32(f)
		}
	}
	for v := range m.Pos {
		if !m.VertAlive[v] || count[v] == 0 {
			continue
		}
		if n := m.fanSize(int32(v), first[v]); n != int(count[v]) {
			return &VertexError{v, fmt.Sprintf("is non-manifold: its %d faces form more than one fan", count[v])}
		}
	}
	return nil
}

// fanSize counts the faces reachable from face f by rotating around vertex v
// in both directions.
func (m *Mesh) fanSize(v, f int32) int {
	n := 1
	// Counter-clockwise: across the edge entering v.
	g := f
	for {
		i := m.Corner(g, v)
		g = m.Adj[g][(i+2)%3]
		if g < 0 {
			break
		}
		if g == f {
			return n
		}
		n++
	}
	g = f
	for {
		i := m.Corner(g, v)
		g = m.Adj[g][i]
		if g < 0 {
			return n
		}
		n++
	}
}

// Corner returns the index k with Tris[f][k] == v. It panics if v is not a
// vertex of f (a programming error).
func (m *Mesh) Corner(f, v int32) int {
	t := m.Tris[f]
	switch v {
	case t[0]:
		return 0
	case t[1]:
		return 1
	case t[2]:
		return 2
	}
	panic(fmt.Sprintf("sim: vertex %d is not on face %d", v, f))
}

// NumVerts returns the number of live vertices.
func (m *Mesh) NumVerts() int { return m.liveVerts }

// NumTris returns the number of live faces.
func (m *Mesh) NumTris() int { return m.liveTris }

// FaceAlive reports whether face slot f is in use.
func (m *Mesh) FaceAlive(f int) bool { return m.Tris[f][0] >= 0 }

// CopyTo makes dst a deep copy of m (every slot, live or free, and the
// free lists), reusing dst's storage: the adaptation keeps the mesh it
// started from (cloth.Sim.snapshotForAdapt), to conserve momentum and to
// undo itself.
func (m *Mesh) CopyTo(dst *Mesh) {
	dst.Pos = append(dst.Pos[:0], m.Pos...)
	dst.Vel = append(dst.Vel[:0], m.Vel...)
	dst.Rest = append(dst.Rest[:0], m.Rest...)
	dst.VertAlive = append(dst.VertAlive[:0], m.VertAlive...)
	dst.Tris = append(dst.Tris[:0], m.Tris...)
	dst.Adj = append(dst.Adj[:0], m.Adj...)
	dst.Gen = append(dst.Gen[:0], m.Gen...)
	dst.freeVerts = append(dst.freeVerts[:0], m.freeVerts...)
	dst.freeTris = append(dst.freeTris[:0], m.freeTris...)
	dst.liveVerts, dst.liveTris = m.liveVerts, m.liveTris
}

// AddVertex stores a vertex in a free slot (or a new one) and returns its slot.
func (m *Mesh) AddVertex(p Vec3, v Vec3, r Vec2) int32 {
	m.liveVerts++
	if n := len(m.freeVerts); n > 0 {
		i := m.freeVerts[n-1]
		m.freeVerts = m.freeVerts[:n-1]
		m.Pos[i], m.Vel[i], m.Rest[i], m.VertAlive[i] = p, v, r, true
		return i
	}
	m.Pos = append(m.Pos, p)
	m.Vel = append(m.Vel, v)
	m.Rest = append(m.Rest, r)
	m.VertAlive = append(m.VertAlive, true)
	return int32(len(m.Pos) - 1)
}

// RemoveVertex frees vertex slot i. The caller must already have removed
// every face that uses it.
func (m *Mesh) RemoveVertex(i int32) {
	m.liveVerts--
	m.VertAlive[i] = false
	m.Pos[i], m.Vel[i], m.Rest[i] = Vec3{}, Vec3{}, Vec2{}
	m.freeVerts = append(m.freeVerts, i)
}

// AddFace stores a face in a free slot (or a new one) and returns its slot.
// Adjacency is the caller's to set.
func (m *Mesh) AddFace(t [3]int32, gen uint32) int32 {
	m.liveTris++
	if n := len(m.freeTris); n > 0 {
		f := m.freeTris[n-1]
		m.freeTris = m.freeTris[:n-1]
		m.Tris[f], m.Adj[f], m.Gen[f] = t, [3]int32{-1, -1, -1}, gen
		return f
	}
	m.Tris = append(m.Tris, t)
	m.Adj = append(m.Adj, [3]int32{-1, -1, -1})
	m.Gen = append(m.Gen, gen)
	return int32(len(m.Tris) - 1)
}

// RemoveFace frees face slot f. Neighbours' Adj entries are the caller's to fix.
func (m *Mesh) RemoveFace(f int32) {
	m.liveTris--
	m.Tris[f] = [3]int32{-1, -1, -1}
	m.Adj[f] = [3]int32{-1, -1, -1}
	m.Gen[f] = 0
	m.freeTris = append(m.freeTris, f)
}

// Edge is an interior edge with its bending stencil: the edge runs from
// V0 to V1, V2 is the vertex opposite it in face F0 = (V0, V1, V2) and V3
// the vertex opposite it in face F1 = (V1, V0, V3).
type Edge struct {
	V0, V1, V2, V3 int32
	F0, F1         int32
}

// Stencil returns the four vertices of an edge's bending stencil in the
// order EdgeBendingQ expects.
func (e Edge) Stencil() [4]int32 { return [4]int32{e.V0, e.V1, e.V2, e.V3} }

// InteriorEdges returns every interior edge once, ordered by (F0, edge index).
func (m *Mesh) InteriorEdges() []Edge {
	var es []Edge
	for f := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		for i := 0; i < 3; i++ {
			g := m.Adj[f][i]
			if g < 0 || g < int32(f) {
				continue
			}
			es = append(es, m.EdgeAt(int32(f), i))
		}
	}
	return es
}

// EdgeAt returns the bending stencil of interior edge i of face f. It
// panics if that edge is on the boundary.
func (m *Mesh) EdgeAt(f int32, i int) Edge {
	t := m.Tris[f]
	g := m.Adj[f][i]
	v0, v1 := t[i], t[(i+1)%3]
	j := m.Corner(g, v1) // in g the edge runs v1 → v0, so v1 is at j and v0 at j+1
	return Edge{V0: v0, V1: v1, V2: t[(i+2)%3], V3: m.Tris[g][(j+2)%3], F0: f, F1: g}
}

// Bounds returns the axis-aligned bounding box of the live vertices.
func (m *Mesh) Bounds() (lo, hi Vec3) {
	inf := math.Inf(1)
	lo, hi = Vec3{inf, inf, inf}, Vec3{-inf, -inf, -inf}
	for i, p := range m.Pos {
		if !m.VertAlive[i] {
			continue
		}
		lo = Vec3{math.Min(lo.X, p.X), math.Min(lo.Y, p.Y), math.Min(lo.Z, p.Z)}
		hi = Vec3{math.Max(hi.X, p.X), math.Max(hi.Y, p.Y), math.Max(hi.Z, p.Z)}
	}
	return lo, hi
}

// MinRestAngle returns the smallest angle of any live face in rest
// (material) space, in degrees; 180 for a mesh without faces.
func (m *Mesh) MinRestAngle() float64 {
	best := 180.0
	for f, t := range m.Tris {
		if m.FaceAlive(f) {
			best = math.Min(best, MinAngle(m.Rest[t[0]], m.Rest[t[1]], m.Rest[t[2]]))
		}
	}
	return best
}

// MinAngle returns the smallest interior angle of triangle (p, q, r) in
// the plane, in degrees, whatever its orientation (0 when degenerate).
func MinAngle(p, q, r Vec2) float64 {
	best := 180.0
	for _, c := range [3][3]Vec2{{p, q, r}, {q, r, p}, {r, p, q}} {
		u, v := c[1].Sub(c[0]), c[2].Sub(c[0])
		best = math.Min(best, math.Atan2(math.Abs(u.Cross(v)), u.X*v.X+u.Y*v.Y)*180/math.Pi)
	}
	return best
}

// BoundaryEdges returns the number of edges of live faces with no face
// across them.
func (m *Mesh) BoundaryEdges() int {
	n := 0
	for f := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		for _, g := range m.Adj[f] {
			if g < 0 {
				n++
			}
		}
	}
	return n
}

// RestAreas returns the total rest (material) area of the live faces and
// the smallest signed one, m²; +Inf as the smallest for a mesh without
// faces.
func (m *Mesh) RestAreas() (total, least float64) {
	least = math.Inf(1)
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		a := RestArea(m.Rest[t[0]], m.Rest[t[1]], m.Rest[t[2]])
		total += a
		least = math.Min(least, a)
	}
	return total, least
}
