package cloth_test

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"testing"

	"drape/assets"
	"drape/sim/geom"
	"drape/sim/internal/simtest"
	"drape/sim/scene"
)

// goldenHashes are the state hashes of fixed scene runs, per architecture
// and product kernel (productKernel: the SSE2 assembly or the pure-Go
// fallback, whose float32 sums round differently; other architectures may
// fuse multiply-adds, so they have hashes of their own or none). They pin the exact trajectory, in the manner of
// Box2D's determinism test: a change that alters any bit of any position or
// the triangle list of these runs fails here. A change meant to alter the
// physics updates them, and says so in its commit.
var goldenHashes = map[string]map[string]uint64{
	"amd64/sse2":   {"hanging/200": 0x3973802be2b28748, "curtain-adaptive/1600": 0x33125640b99b29c1, "sphere-adaptive/200/contact": 0x905cc4756f3745aa},
	"amd64/purego": {"hanging/200": 0x220f4d3aa139990e, "curtain-adaptive/1600": 0x1c428f1e710b5c8d, "sphere-adaptive/200/contact": 0x7bfb6cb083dd3221},
}

// stateHash returns an FNV-1a hash of the bits of every live position (in
// slot order) and of every live face's vertex slots (in slot order).
func stateHash(m *geom.Mesh) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for i, p := range m.Pos {
		if !m.VertAlive[i] {
			continue
		}
		for _, x := range [3]float64{p.X, p.Y, p.Z} {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
			h.Write(b[:])
		}
	}
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		for _, v := range t {
			binary.LittleEndian.PutUint32(b[:4], uint32(v))
			h.Write(b[:4])
		}
	}
	return h.Sum64()
}

// TestGoldenHashes runs hanging for 200 steps and curtain-adaptive for 1600
// (8 s: refined where the gathered curtain folds, and coarsened again in
// places) without collisions, and sphere-adaptive for 200 steps with its
// collisions and strain limiting at 10 %, and compares the state hashes
// with goldenHashes.
func TestGoldenHashes(t *testing.T) {
	simtest.SkipUnderRace(t)
	build := runtime.GOARCH + "/" + productKernel
	want, ok := goldenHashes[build]
	if !ok {
		t.Skipf("no golden hashes for %s", build)
	}
	for _, c := range []struct {
		scene   string
		steps   int
		contact bool // collisions as the scene has them, and strain limiting at 10 %
	}{{"hanging", 200, false}, {"curtain-adaptive", 1600, false}, {"sphere-adaptive", 200, true}} {
		key := fmt.Sprintf("%s/%d", c.scene, c.steps)
		if c.contact {
			key += "/contact"
		}
		t.Run(key, func(t *testing.T) {
			if testing.Short() && c.steps > 200 {
				t.Skip("long run; skipped with -short")
			}
			sc, err := scene.LoadScene(assets.Scenes, c.scene)
			if err != nil {
				t.Fatal(err)
			}
			// The first hashes guard the FEM core and adaptivity as they
			// were before the sim split; collisions came later. The
			// contact one guards the collision phase with self-collision
			// and strain limiting (issue 41's step-order move).
			if c.contact {
				sc.Strain.Enabled, sc.Strain.MaxWeft, sc.Strain.MaxWarp = true, 0.1, 0.1
			} else {
				sc.Contact.Enabled = false
			}
			s, err := sc.Build()
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < c.steps; k++ {
				if _, err := s.Step(); err != nil {
					t.Fatal(err)
				}
			}
			if got := stateHash(s.Mesh); got != want[key] {
				t.Errorf("%s (%s, %d triangles): state hash %#x, want %#x", key, build, s.Mesh.NumTris(), got, want[key])
			}
		})
	}
}
