package sim

import ("testing";"os";"time")
import "drape/assets"

func TestProfCurtain(t *testing.T) {
	if os.Getenv("PROF") == "" { t.Skip() }
	sc, err := LoadScene(assets.Scenes, "curtain")
	if err != nil { t.Fatal(err) }
	s, err := sc.Build()
	if err != nil { t.Fatal(err) }
	var tot, asm, sol time.Duration; its := 0
	n := 100
	for k := 0; k < n; k++ {
		st, err := s.Step()
		if err != nil { t.Fatal(err) }
		tot += st.Total(); asm += st.Assemble; sol += st.Solve; its += st.Iterations
	}
	t.Logf("mean %v asm %v solve %v its %.1f", tot/time.Duration(n), asm/time.Duration(n), sol/time.Duration(n), float64(its)/float64(n))
}
