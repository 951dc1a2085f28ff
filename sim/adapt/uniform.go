package adapt

import "fmt"

// RefineUniform refines the whole mesh to generation g by g/2 uniform √3
// steps (Kobbelt 2000): step k brings every live face to generation 2k,
// interior faces by the 1-to-3 split and flip, boundary faces alternately
// by the split with promotion and by the trisection of the boundary edge
// (Bender & Deul fig. 3). Each step triples the face count, so g = 6
// multiplies it by 27: the full-resolution mesh that adaptive refinement to
// g_max = g approximates, vertex for vertex (the same Rest, computed by the
// same operations). The changes go to the change record as any Refine's.
// It returns an error, changing nothing, for an odd g or one above GMax.
func (a *Adapter) RefineUniform(g int) error {
	if g < 0 || g > a.gmax || g%2 != 0 {
		return fmt.Errorf("uniform refinement: generation must be even and in [0, %d], got %d", a.gmax, g)
	}
	m := a.m
	for k := 1; k <= g/2; k++ {
		for {
			did := false
			for f := range m.Tris {
				if m.FaceAlive(f) && Generation(m.Gen[f]) < 2*k && a.Refine(int32(f)) {
					did = true
				}
			}
			if !did {
				break
			}
		}
	}
	return nil
}
