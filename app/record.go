package app

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"drape/render"
)

// This file holds what the live recorder (record_live.go) and drape
// record (record_headless.go) share: the frame sinks and the frame
// schedule.

// frameSink receives the frames of one recording: w×h RGBA8, rows
// bottom-up (GL order, as render.AsyncReadback returns them).
type frameSink interface {
	// WriteFrame encodes one frame. pix holds 4·w·h bytes and may be
	// reused once WriteFrame returns. After an error the sink is broken:
	// call Close and stop.
	WriteFrame(pix []byte) error
	// Close finishes the recording (the MP4 is finalised, every PNG is on
	// disk) and returns the first error not yet reported.
	Close() error
	// Kind is "ffmpeg" or "png"; Path the video file or frame directory.
	Kind() string
	Path() string
}

// ffmpegSink streams raw frames into ffmpeg, which writes an H.264 MP4.
type ffmpegSink struct {
	path   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	done   chan struct{} // closed when ffmpeg has exited; wait is set before
	wait   error
	closed bool
}

// lockedBuffer is a bytes.Buffer safe for exec's stderr copier and the
// reader; it keeps only the last 4 KiB.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	if n := l.b.Len(); n > 4096 {
		l.b.Next(n - 4096)
	}
	return len(p), nil
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.TrimSpace(l.b.String())
}

// ffmpegArgs returns the ffmpeg command line that reads w×h RGBA frames
// at fps from stdin (rows bottom-up, hence vflip) and writes path as H.264
// yuv420p MP4 (w and h must be even for yuv420p). The MP4 is fragmented
// (an empty moov up front, a fragment per keyframe, a keyframe every
// second, each flushed to disk at once), so if ffmpeg dies or the disk
// fills up, every fragment already written still plays: a plain MP4 is
// unreadable until its index is written at the end. (The encoder's
// lookahead, about a second, is what such a failure loses.)
func ffmpegArgs(w, h int, fps float64, path string) []string {
	return []string{"-y", "-loglevel", "error",
		"-f", "rawvideo", "-pix_fmt", "rgba", "-s", fmt.Sprintf("%dx%d", w, h), "-r", strconv.FormatFloat(fps, 'g', -1, 64), "-i", "-",
		"-vf", "vflip", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", strconv.Itoa(max(1, int(math.Round(fps)))),
		"-movflags", "+frag_keyframe+empty_moov+default_base_moof", "-flush_packets", "1", path}
}

// newFFmpegSink starts ffmpeg writing path. It fails if ffmpeg is not on
// PATH, w or h is odd, or ffmpeg cannot be started.
func newFFmpegSink(path string, w, h int, fps float64) (*ffmpegSink, error) {
	if w <= 0 || h <= 0 || w%2 != 0 || h%2 != 0 {
		return nil, fmt.Errorf("recording %s: size %dx%d must be positive and even", path, w, h)
	}
	bin, err := exec.LookPath("ffmpeg")
	if err != nil {
		return nil, fmt.Errorf("recording %s: ffmpeg not found on PATH", path)
	}
	s := &ffmpegSink{path: path, stderr: &lockedBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(bin, ffmpegArgs(w, h, fps, path)...)
	s.cmd.Stderr = s.stderr
	in, err := s.cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("recording %s: %w", path, err)
	}
	s.stdin = in
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("recording %s: starting ffmpeg: %w", path, err)
	}
	go func() { s.wait = s.cmd.Wait(); close(s.done) }()
	return s, nil
}

func (s *ffmpegSink) Kind() string { return "ffmpeg" }
func (s *ffmpegSink) Path() string { return s.path }

// WriteFrame writes pix to ffmpeg's stdin. If ffmpeg has exited (a bad
// path, a full disk) it returns ffmpeg's own message.
func (s *ffmpegSink) WriteFrame(pix []byte) error {
	select {
	case <-s.done:
		return s.exitError()
	default:
	}
	if _, err := s.stdin.Write(pix); err != nil {
		s.stdin.Close()
		<-s.done
		if e := s.exitError(); e != nil {
			return e
		}
		return fmt.Errorf("recording %s: writing to ffmpeg: %w", s.path, err)
	}
	return nil
}

// exitError describes why ffmpeg stopped early; call it after done.
func (s *ffmpegSink) exitError() error {
	msg := s.stderr.String()
	if msg == "" && s.wait != nil {
		msg = s.wait.Error()
	}
	if msg == "" {
		msg = "exited early"
	}
	return fmt.Errorf("recording %s: ffmpeg: %s", s.path, strings.ReplaceAll(msg, "\n", "; "))
}

// Close closes ffmpeg's stdin, so it finalises the MP4, and waits for it.
func (s *ffmpegSink) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.stdin.Close()
	<-s.done
	if s.wait != nil {
		return s.exitError()
	}
	return nil
}

// pngSink writes frame_000000.png, frame_000001.png, … into a directory.
type pngSink struct {
	dir  string
	w, h int
	n    int
	img  *image.RGBA
	enc  png.Encoder
}

// newPNGSink creates dir (and parents) for a w×h PNG sequence.
func newPNGSink(dir string, w, h int) (*pngSink, error) {
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("recording %s: empty %dx%d frame", dir, w, h)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	return &pngSink{dir: dir, w: w, h: h, img: image.NewRGBA(image.Rect(0, 0, w, h)), enc: png.Encoder{CompressionLevel: png.BestSpeed}}, nil
}

func (s *pngSink) Kind() string { return "png" }
func (s *pngSink) Path() string { return s.dir }
func (s *pngSink) Close() error { return nil }

// WriteFrame flips pix to top-down rows, makes it opaque and writes the
// next numbered PNG. A file that could not be written completely is
// removed, so every PNG left in the directory is a whole frame.
func (s *pngSink) WriteFrame(pix []byte) error {
	copy(s.img.Pix, pix[:4*s.w*s.h])
	render.FlipRows(s.img.Pix, 4*s.w)
	for i := 3; i < len(s.img.Pix); i += 4 {
		s.img.Pix[i] = 255
	}
	path := filepath.Join(s.dir, fmt.Sprintf("frame_%06d.png", s.n))
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	err = s.enc.Encode(f, s.img)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("recording %s: %w", path, err)
	}
	s.n++
	return nil
}

// isVideoPath reports whether out names a video file (it has a file
// extension such as .mp4) rather than a frame directory.
func isVideoPath(out string) bool {
	ext := strings.ToLower(filepath.Ext(out))
	return ext == ".mp4" || ext == ".mov" || ext == ".mkv"
}

// newSink returns the sink for out: for a video path ffmpeg when it is on
// PATH, otherwise a PNG sequence in out without its extension (note says
// so); for any other out a PNG sequence in the directory out.
func newSink(out string, w, h int, fps float64) (sink frameSink, note string, err error) {
	if isVideoPath(out) {
		if _, lerr := exec.LookPath("ffmpeg"); lerr == nil {
			s, err := newFFmpegSink(out, w, h, fps)
			if err != nil {
				return nil, "", err
			}
			return s, "", nil
		}
		dir := strings.TrimSuffix(out, filepath.Ext(out))
		note = fmt.Sprintf("ffmpeg not found on PATH: writing a PNG sequence to %s instead of %s", dir, out)
		out = dir
	}
	s, err := newPNGSink(out, w, h)
	if err != nil {
		return nil, "", err
	}
	return s, note, nil
}

// frameTimeEps is the tolerance, in steps, below which a frame time counts
// as reached: t0 + k/fps is rarely a float-exact multiple of dt.
const frameTimeEps = 1e-6

// stepsUntil returns how many steps of dt take the simulation from time t
// to at least target: ⌈(target − t)/dt − ε⌉, or 0 when target ≤ t (within
// ε steps). Both recorders use it, so the live and the headless video
// sample the same simulated times.
func stepsUntil(t, target, dt float64) int {
	if !(dt > 0) {
		return 0
	}
	return max(0, int(math.Ceil((target-t)/dt-frameTimeEps)))
}

// evenDown returns n rounded down to an even number (yuv420p needs even
// sizes).
func evenDown(n int) int { return n &^ 1 }

// CurvatureColor returns the viewer's default colour (cool-warm) of mean
// curvature h (1/m) on the symmetric range ±half, as 8-bit RGB. half ≤ 0
// or NaN means minAutoRange.
func CurvatureColor(h, half float64) [3]uint8 {
	if !(half > 0) {
		half = minAutoRange
	}
	if math.IsNaN(h) {
		h = 0
	}
	c := mapColor(render.ColorMapCoolWarm, float32(0.5+0.5*h/half))
	return [3]uint8{uint8(c[0]*255 + 0.5), uint8(c[1]*255 + 0.5), uint8(c[2]*255 + 0.5)}
}

// asyncSink runs another sink's WriteFrame on its own goroutine, so PNG
// compression or a busy ffmpeg pipe does not stall the render thread.
// It holds two frame buffers: WriteFrame copies into a free one and
// returns at once, waiting only when the encoder is two frames behind.
// An encoder error is returned by the next WriteFrame or by Close; frames
// after it are dropped.
type asyncSink struct {
	frameSink
	free, work chan []byte
	done       chan struct{} // closed when the writer goroutine has finished
	mu         sync.Mutex
	err        error
	closed     bool
}

func newAsyncSink(s frameSink, frameSize int) *asyncSink {
	a := &asyncSink{frameSink: s, free: make(chan []byte, 2), work: make(chan []byte, 2), done: make(chan struct{})}
	for range 2 {
		a.free <- make([]byte, frameSize)
	}
	go func() {
		defer close(a.done)
		for b := range a.work {
			if a.failed() == nil {
				if err := a.frameSink.WriteFrame(b); err != nil {
					a.mu.Lock()
					a.err = err
					a.mu.Unlock()
				}
			}
			a.free <- b
		}
	}()
	return a
}

func (a *asyncSink) failed() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// WriteFrame queues a copy of pix.
func (a *asyncSink) WriteFrame(pix []byte) error {
	if err := a.failed(); err != nil {
		return err
	}
	b := <-a.free
	copy(b, pix)
	a.work <- b
	return nil
}

// Close waits for the queued frames, closes the sink and returns the
// encoder's first error, if any.
func (a *asyncSink) Close() error {
	if a.closed {
		return nil
	}
	a.closed = true
	close(a.work)
	<-a.done
	cerr := a.frameSink.Close()
	if err := a.failed(); err != nil {
		return err
	}
	return cerr
}
