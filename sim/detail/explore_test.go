package detail

import "testing"

func TestExplore(t *testing.T) {
	for _, kind := range []EnergyKind{EdgeEnergy, FaceEnergy} {
		for _, lv := range []int{1, 2} {
			p := DefaultParams()
			p.Level = lv
			p.Energy = kind
			det := NewDetailer(p)
			base := sheet(t, 1, 0.5, 10, 5)
			var s Surface
			for _, c := range []float64{-0.05, 0, 0.01, 0.02, 0.05, 0.1, 0.2} {
				st, err := det.Update(compressX(base, c), &s)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%v L%d c=%.2f maxD=%.4f it=%d cg=%d bt=%d E0=%.3g E=%.3g carried=%d", kind, lv, c, st.MaxD, st.Iterations, st.CGIterations, st.Backtracks, st.Energy0, st.Energy, st.Carried)
			}
		}
	}
}
