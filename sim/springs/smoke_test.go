package springs

import "testing"

func TestSmoke(t *testing.T) {
	for _, name := range SceneNames() {
		s, _ := Scene(name)
		c, err := New(s, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		for range 4000 {
			if err := c.Step(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		m, x := c.Mass()
		t.Logf("%s: %+v mass %.4f com %v stable %.3g", name, c.Counts(), m, x, c.StableStep())
	}
}
