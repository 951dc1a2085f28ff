package app

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runDrape runs the drape binary with args and env additions, and returns
// stdout and stderr; it fails the test on a non-zero exit.
func runDrape(t *testing.T, env []string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(viewerBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("drape %s: %v\n%s", strings.Join(args, " "), err, e.String())
	}
	return o.String(), e.String()
}

// TestGUIRecordVideo records 2 s of hanging at 30 fps with drape record
// in a hidden window and checks with ffprobe that the MP4 has 60 frames
// of 320×240.
func TestGUIRecordVideo(t *testing.T) {
	needDisplay(t)
	needFFmpeg(t)
	out := filepath.Join(outDir(t), "record_hanging.mp4")
	stdout, _ := runDrape(t, nil, "record", "--scene", "hanging", "--seconds", "2", "--fps", "30", "--size", "320x240", "--out", out)
	if !strings.Contains(stdout, "frame 60/60 (100%)") || !strings.Contains(stdout, "60 frames (ffmpeg)") {
		t.Errorf("stdout got=%q, want progress and a summary", stdout)
	}
	if n, w, h := probe(t, out); n != 60 || w != 320 || h != 240 {
		t.Errorf("video got %d frames %dx%d, want 60 320x240", n, w, h)
	}
}

// TestGUIRecordPNGFallback hides ffmpeg (an empty PATH): drape record
// --out clip.mp4 writes clip/frame_*.png instead and says so. A second
// recording into a directory gives byte-identical frames: the video does
// not depend on timing.
func TestGUIRecordPNGFallback(t *testing.T) {
	needDisplay(t)
	dir := outDir(t)
	out := filepath.Join(dir, "fallback.mp4")
	frames := filepath.Join(dir, "fallback")
	os.RemoveAll(frames)
	noFFmpeg := []string{"PATH=" + t.TempDir()}
	_, stderr := runDrape(t, noFFmpeg, "record", "--scene", "hanging", "--seconds", "0.5", "--fps", "30", "--size", "160x120", "--out", out)
	if !strings.Contains(stderr, "ffmpeg not found on PATH: writing a PNG sequence to "+frames) {
		t.Errorf("stderr got=%q, want the PNG fallback notice", stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s exists without ffmpeg", out)
	}
	names, _ := filepath.Glob(filepath.Join(frames, "frame_*.png"))
	if len(names) != 15 {
		t.Fatalf("got %d PNG frames, want 15", len(names))
	}
	img := readPNG(t, names[14])
	if b := img.Bounds(); b.Dx() != 160 || b.Dy() != 120 {
		t.Errorf("frame size got=%v, want 160x120", b.Size())
	}
	again := filepath.Join(t.TempDir(), "again")
	runDrape(t, nil, "record", "--scene", "hanging", "--seconds", "0.5", "--fps", "30", "--size", "160x120", "--out", again)
	for _, i := range []int{0, 7, 14} {
		name := fmt.Sprintf("frame_%06d.png", i)
		a, err1 := os.ReadFile(filepath.Join(frames, name))
		b, err2 := os.ReadFile(filepath.Join(again, name))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two recordings (%v, %v)", name, err1, err2)
		}
	}
}

// TestGUIRecordLive records in the viewer with F9, saves a screenshot with
// F12, and checks the files and the messages; then, with an unwritable
// directory, checks that F9 reports the error and the viewer runs on.
func TestGUIRecordLive(t *testing.T) {
	needDisplay(t)
	needFFmpeg(t)
	needXdotool(t)
	dir := outDir(t)
	recDir := filepath.Join(dir, "live")
	os.RemoveAll(recDir)
	state := filepath.Join(dir, "record_live.json")
	v := startViewer(t, state, "--record-dir", recDir, "--width", "480", "--height", "360", "--msaa", "0")
	v.poll("the first state", func(s State) bool { return s.Frames >= 3 })
	win := strings.Fields(xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^drape"))[0]
	xdotool(t, "key", "--window", win, "F9")
	v.poll("recording to start", func(s State) bool { return hasMessage(s, "recording 480x360 at 30 fps") })
	time.Sleep(2 * time.Second)
	xdotool(t, "key", "--window", win, "F9")
	st := v.poll("recording to stop", func(s State) bool { return hasMessage(s, "recorded ") })
	xdotool(t, "key", "--window", win, "F12")
	st = v.poll("the screenshot", func(s State) bool { return hasMessage(s, "saved screenshot") })
	v.stop()

	var frames int
	var video, shot string
	for _, m := range st.Messages {
		fmt.Sscanf(m, "recorded %d frames", &frames)
		if i := strings.Index(m, " to "); strings.HasPrefix(m, "recorded ") && i >= 0 {
			video = m[i+4:]
		}
		shot = strings.TrimPrefix(m, "saved screenshot ")
	}
	if frames < 3 || filepath.Ext(video) != ".mp4" {
		t.Fatalf("messages %q: want a recording of at least 3 frames to an MP4", st.Messages)
	}
	if n, w, h := probe(t, video); n != frames || w != 480 || h != 360 {
		t.Errorf("video got %d frames %dx%d, want %d 480x360", n, w, h, frames)
	}
	if img := readPNG(t, shot); img.Bounds().Dx() != 480 {
		t.Errorf("screenshot %s: size %v, want 480 wide", shot, img.Bounds())
	}
	// While recording the recorder stepped the simulation: it went on.
	if !st.Finite || st.Steps < 7*frames/2 || st.Paused {
		t.Errorf("state got finite=%v steps=%d paused=%v, want finite, ≥ %d steps, running", st.Finite, st.Steps, st.Paused, 7*frames/2)
	}

	// An unwritable recording directory (a path under a regular file).
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	state2 := filepath.Join(dir, "record_fail.json")
	v = startViewer(t, state2, "--record-dir", filepath.Join(file, "sub"), "--width", "320", "--height", "240", "--msaa", "0")
	v.poll("the first state", func(s State) bool { return s.Frames >= 3 })
	win = strings.Fields(xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^drape"))[0]
	xdotool(t, "key", "--window", win, "F9")
	st = v.poll("the error", func(s State) bool { return hasMessage(s, "not a directory") })
	n := st.Frames
	v.poll("more frames", func(s State) bool { return s.Frames > n+5 })
	if errOut := v.stop(); !strings.Contains(errOut, "drape view: recording: ") {
		t.Errorf("stderr got=%q, want the recording error", errOut)
	}
}

// TestGUIRecordLiveSize records in an 800×600 viewer at --record-size
// 640x360, drawn offscreen with 4× MSAA: ffprobe must report 640×360, and
// a frame taken from the middle of the video must show the cloth (lit,
// coloured pixels that the dark background gradient never has).
func TestGUIRecordLiveSize(t *testing.T) {
	needDisplay(t)
	needFFmpeg(t)
	needXdotool(t)
	dir := outDir(t)
	recDir := filepath.Join(dir, "live_size")
	os.RemoveAll(recDir)
	state := filepath.Join(dir, "record_live_size.json")
	// The sheet swings and is edge-on to the camera at some moments (about
	// 1.0 s): record from 1.5 s, where it faces the camera, whatever the
	// machine's speed.
	v := startViewer(t, state, "--record-dir", recDir, "--width", "800", "--height", "600", "--msaa", "4", "--record-size", "640x360",
		"--speed", "0", "--pause-at", "1.5")
	v.poll("the pause at 1.5 s", func(s State) bool { return s.Frames >= 3 && s.Paused })
	win := strings.Fields(xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^drape"))[0]
	xdotool(t, "key", "--window", win, "F9")
	st := v.poll("recording to start", func(s State) bool { return hasMessage(s, "recording 640x360 at 30 fps") })
	// The recorder steps the simulation (dt 5 ms, 30 fps: about 7 steps a
	// frame): wait for some 10 frames' worth however slow the machine.
	steps := st.Steps
	v.poll("recorded steps", func(s State) bool { return s.Steps >= steps+70 })
	xdotool(t, "key", "--window", win, "F9")
	st = v.poll("recording to stop", func(s State) bool { return hasMessage(s, "recorded ") })
	v.stop()

	var frames int
	var video string
	for _, m := range st.Messages {
		fmt.Sscanf(m, "recorded %d frames", &frames)
		if i := strings.Index(m, " to "); strings.HasPrefix(m, "recorded ") && i >= 0 {
			video = m[i+4:]
		}
	}
	if frames < 3 || filepath.Ext(video) != ".mp4" {
		t.Fatalf("messages %q: want a recording of at least 3 frames to an MP4", st.Messages)
	}
	if n, w, h := probe(t, video); n != frames || w != 640 || h != 360 {
		t.Errorf("video got %d frames %dx%d, want %d 640x360", n, w, h, frames)
	}
	frame := filepath.Join(dir, "record_live_size_frame.png")
	os.Remove(frame)
	if out, err := exec.Command("ffmpeg", "-v", "error", "-y", "-i", video, "-vf", fmt.Sprintf("select=eq(n\\,%d)", frames/2), "-frames:v", "1", frame).CombinedOutput(); err != nil {
		t.Fatalf("extracting frame %d: %v\n%s", frames/2, err, out)
	}
	img := readPNG(t, frame)
	if b := img.Bounds(); b.Dx() != 640 || b.Dy() != 360 {
		t.Fatalf("frame size got=%v, want 640x360", b.Size())
	}
	// The background is a gradient from (0.16, 0.17, 0.20) down to
	// (0.05, 0.05, 0.06): no channel above 0.2·255 = 51. The lit cloth is
	// far brighter.
	bright, total := 0, 0
	for y := 0; y < 360; y++ {
		for x := 0; x < 640; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if max(r, g, b)>>8 > 100 {
				bright++
			}
			total++
		}
	}
	frac := float64(bright) / float64(total)
	t.Logf("frame %d of %d: %.3f of the pixels bright", frames/2, frames, frac)
	if frac < 0.02 || frac > 0.8 {
		t.Errorf("bright pixels got=%.3f of the frame, want the cloth (between 0.02 and 0.8)", frac)
	}
}

// TestGUIRecordFFmpegFails puts a fake ffmpeg on PATH that takes a few
// frames and exits as on a full disk: the viewer reports ffmpeg's message
// in the UI and on stderr, stops recording, resumes the simulation and
// keeps running.
func TestGUIRecordFFmpegFails(t *testing.T) {
	needDisplay(t)
	needXdotool(t)
	bin := t.TempDir()
	fake := "#!/bin/sh\nhead -c 1000000 >/dev/null\necho 'av_interleaved_write_frame(): No space left on device' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "ffmpeg"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH")) // the fake shadows a real ffmpeg
	state := filepath.Join(outDir(t), "record_ffmpeg_fails.json")
	v := startViewer(t, state, "--record-dir", t.TempDir(), "--width", "320", "--height", "240", "--msaa", "0")
	v.poll("the first state", func(s State) bool { return s.Frames >= 3 })
	win := strings.Fields(xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^drape"))[0]
	xdotool(t, "key", "--window", win, "F9")
	st := v.poll("the failure", func(s State) bool { return hasMessage(s, "recording failed after") })
	if !hasMessage(st, "ffmpeg: av_interleaved_write_frame(): No space left on device") {
		t.Errorf("messages got=%q, want ffmpeg's message", st.Messages)
	}
	n, steps := st.Frames, st.Steps
	st = v.poll("the viewer and simulation to go on", func(s State) bool { return s.Frames > n+5 && s.Steps > steps+5 })
	if st.Paused {
		t.Errorf("simulation paused after the failed recording, want it running")
	}
	if errOut := v.stop(); !strings.Contains(errOut, "No space left on device") {
		t.Errorf("stderr got=%q, want ffmpeg's message", errOut)
	}
}

func hasMessage(s State, sub string) bool {
	for _, m := range s.Messages {
		if strings.Contains(m, sub) {
			return true
		}
	}
	return false
}

// TestRecSize checks the Record panel's size choice: presets, the window
// (0×0), and custom sizes rounded down to even and clamped.
func TestRecSize(t *testing.T) {
	for _, c := range []struct {
		w, h         int
		preset       string
		wantW, wantH int
	}{
		{0, 0, "window size", 0, 0},
		{1280, 720, "1280x720", 1280, 720},
		{640, 480, "640x480", 640, 480},
		{641, 361, "custom", 640, 360},
		{3, 99999, "custom", 2, maxRecSide},
	} {
		s := newRecSize(c.w, c.h)
		w, h := s.frameSize()
		if recPresets[s.preset].name != c.preset || w != c.wantW || h != c.wantH {
			t.Errorf("newRecSize(%d, %d) got=%s %dx%d, want=%s %dx%d", c.w, c.h, recPresets[s.preset].name, w, h, c.preset, c.wantW, c.wantH)
		}
	}
}
