package app

import (
	"path/filepath"
	"testing"
)

// TestGUIMaxFPS runs the viewer paused with --max-fps 20 for 60 frames
// (3 s) and checks the rate it reports in --state (the Stats panel's
// "render" line): 20 fps within 10%. Software OpenGL draws the paused
// hanging sheet in a small window far faster than that, so the cap is
// what sets the rate.
func TestGUIMaxFPS(t *testing.T) {
	needDisplay(t)
	st, _ := runViewer(t, filepath.Join(t.TempDir(), "state.json"), "--scene", "hanging", "--paused", "--msaa", "0",
		"--width", "480", "--height", "320", "--max-fps", "20", "--frames", "60")
	if st.FPS < 18 || st.FPS > 22 {
		t.Errorf("render rate with --max-fps 20: got=%.1f fps, want=20 ± 2", st.FPS)
	}
}
