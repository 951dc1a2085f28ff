package meshio

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"drape/sim/geom"
)

// cacheFrames returns frames frames of verts positions that differ in
// every coordinate and frame, some not representable in float32.
func cacheFrames(frames, verts int) [][]geom.Vec3 {
	out := make([][]geom.Vec3, frames)
	for k := range out {
		out[k] = make([]geom.Vec3, verts)
		for i := range out[k] {
			out[k][i] = geom.Vec3{X: 0.1 * float64(i+1), Y: -1.5 + float64(k)/3, Z: math.Pi * float64(i-k)}
		}
	}
	return out
}

// writeCache writes frames at times k/30 s through a PointCacheWriter
// planned for planned frames into a file, and returns its bytes.
func writeCache(t *testing.T, format CacheFormat, frames [][]geom.Vec3, planned int) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c."+format.String())
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewPointCacheWriter(f, format, len(frames[0]), planned)
	if err != nil {
		t.Fatal(err)
	}
	for k, fr := range frames {
		if err := w.WriteFrame(float64(k)/30, fr); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestPointCacheRoundTrip: a cache written and read back holds the
// frames, rounded to float32, bit for bit, behind the header the format
// specifies byte for byte, also when the run wrote fewer frames than
// planned (PC2's count patched; MDD's times and points moved up).
func TestPointCacheRoundTrip(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	for _, c := range []struct {
		format           CacheFormat
		frames, planned  int
		header           []byte // the spec's bytes for 2 vertices
		start, sampling  float32
		times            []float32
		frameOff, stride int
	}{
		// The spec's bytes, written out: "POINTCACHE2\0", then little-endian
		// int32 1 (version), 2 (vertices), float32 0 (start), 1 (sampling),
		// int32 frames.
		{PC2, 3, 3, []byte("POINTCACHE2\x00\x01\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x3f\x03\x00\x00\x00"), 0, 1, nil, 32, 24},
		{PC2, 2, 5, []byte("POINTCACHE2\x00\x01\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x3f\x02\x00\x00\x00"), 0, 1, nil, 32, 24},
		// Big-endian int32 frames, 2 (vertices), then float32 times 0,
		// 1/30 (0x3d088889) and 2/30 (0x3d888889) s.
		{MDD, 3, 3, []byte("\x00\x00\x00\x03\x00\x00\x00\x02\x00\x00\x00\x00\x3d\x08\x88\x89\x3d\x88\x88\x89"), 0, 0, []float32{0, 1.0 / 30, 2.0 / 30}, 20, 24},
		{MDD, 2, 5, []byte("\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x00\x3d\x08\x88\x89"), 0, 0, []float32{0, 1.0 / 30}, 16, 24},
	} {
		frames := cacheFrames(c.frames, 2)
		data := writeCache(t, c.format, frames, c.planned)
		name := c.format.String() + " " + strings.Repeat("short ", min(1, c.planned-c.frames))
		if got, want := len(data), c.frameOff+c.frames*c.stride; got != want {
			t.Errorf("%s: file size got=%d, want=%d", name, got, want)
		}
		if !bytes.HasPrefix(data, c.header) {
			t.Errorf("%s: header got=% x, want=% x", name, data[:min(len(data), len(c.header))], c.header)
		}
		// The first point of frame 1, as the spec lays it out.
		order := binary.ByteOrder(le)
		if c.format == MDD {
			order = be
		}
		if got, want := order.Uint32(data[c.frameOff+c.stride:]), math.Float32bits(float32(frames[1][0].X)); got != want {
			t.Errorf("%s: frame 1 vertex 0 x bits got=%08x, want=%08x", name, got, want)
		}
		pc, err := ReadPointCache(bytes.NewReader(data), c.format)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if pc.Verts != 2 || len(pc.Frames) != c.frames || pc.Start != c.start || pc.Sampling != c.sampling {
			t.Errorf("%s: read %d vertices, %d frames, start %v, sampling %v; want 2, %d, %v, %v", name, pc.Verts, len(pc.Frames), pc.Start, pc.Sampling, c.frames, c.start, c.sampling)
		}
		if len(pc.Times) != len(c.times) {
			t.Errorf("%s: times got=%v, want=%v", name, pc.Times, c.times)
		}
		for k := range pc.Times {
			if pc.Times[k] != c.times[k] {
				t.Errorf("%s: time %d got=%v, want=%v", name, k, pc.Times[k], c.times[k])
			}
		}
		for k, fr := range pc.Frames {
			for i, p := range frames[k] {
				want := [3]float32{float32(p.X), float32(p.Y), float32(p.Z)}
				if got := [3]float32(fr[3*i : 3*i+3]); got != want {
					t.Errorf("%s: frame %d vertex %d got=%v, want=%v", name, k, i, got, want)
				}
			}
		}
	}
}

// TestPointCacheWriterErrors: the writer refuses what would make a bad
// file.
func TestPointCacheWriterErrors(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "c.pc2"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		name          string
		format        CacheFormat
		verts, frames int
	}{
		{"no vertices", PC2, 0, 1},
		{"no frames", MDD, 1, 0},
		{"no format", 0, 1, 1},
	} {
		if _, err := NewPointCacheWriter(f, c.format, c.verts, c.frames); err == nil {
			t.Errorf("%s: got no error", c.name)
		}
	}
	w, err := NewPointCacheWriter(f, PC2, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFrame(0, make([]geom.Vec3, 3)); err == nil || !strings.Contains(err.Error(), "frame of 3 vertices, want 2") {
		t.Errorf("wrong vertex count: got err=%v", err)
	}
	if err := w.WriteFrame(0, make([]geom.Vec3, 2)); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFrame(0, make([]geom.Vec3, 2)); err == nil || !strings.Contains(err.Error(), "all 1 planned frames") {
		t.Errorf("one frame too many: got err=%v", err)
	}
}

// TestReadPointCacheErrors: a damaged file is an error that says what is
// wrong, never a panic or a short cache.
func TestReadPointCacheErrors(t *testing.T) {
	good := map[CacheFormat][]byte{}
	for _, f := range []CacheFormat{PC2, MDD} {
		good[f] = writeCache(t, f, cacheFrames(2, 3), 2)
	}
	patch := func(b []byte, off int, v uint32, order binary.ByteOrder) []byte {
		b = bytes.Clone(b)
		order.PutUint32(b[off:], v)
		return b
	}
	for _, c := range []struct {
		name   string
		format CacheFormat
		data   []byte
		want   string
	}{
		{"empty PC2", PC2, nil, "PC2 header"},
		{"magic", PC2, append([]byte("POINTCACHE3\x00"), good[PC2][12:]...), "starts with"},
		{"version", PC2, patch(good[PC2], 12, 2, binary.LittleEndian), "version 2"},
		{"no vertices", PC2, patch(good[PC2], 16, 0, binary.LittleEndian), "0 vertices"},
		{"negative frames", PC2, patch(good[PC2], 28, math.MaxUint32, binary.LittleEndian), "-1 frames"},
		{"more frames than data", PC2, patch(good[PC2], 28, 1<<30, binary.LittleEndian), "frame 2 of 1073741824"},
		{"truncated PC2", PC2, good[PC2][:len(good[PC2])-1], "frame 1 of 2"},
		{"trailing PC2", PC2, append(bytes.Clone(good[PC2]), 0), "data after the 2 frames"},
		{"empty MDD", MDD, nil, "MDD header"},
		{"huge MDD", MDD, patch(good[MDD], 4, 1<<30, binary.BigEndian), "vertices"},
		{"MDD times", MDD, patch(good[MDD], 0, 1<<30, binary.BigEndian), "time of frame"},
		{"truncated MDD", MDD, good[MDD][:len(good[MDD])-4], "frame 1 of 2"},
		{"unknown format", 0, good[PC2], "unknown format"},
	} {
		_, err := ReadPointCache(bytes.NewReader(c.data), c.format)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got err=%v, want it to contain %q", c.name, err, c.want)
		}
	}
}

// FuzzReadPointCache: any input reads without a panic, and what reads
// back writes back to the same bytes.
func FuzzReadPointCache(f *testing.F) {
	for _, format := range []CacheFormat{PC2, MDD} {
		f.Add(append([]byte{byte(format)}, writeCacheBytes(format, cacheFrames(2, 2))...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		format := CacheFormat(data[0]%2 + 1)
		pc, err := ReadPointCache(bytes.NewReader(data[1:]), format)
		if err != nil {
			return
		}
		if format == PC2 && (pc.Start != 0 || pc.Sampling != 1) || len(pc.Frames) == 0 {
			return // a header this writer does not write
		}
		for _, fr := range append(pc.Frames, pc.Times) {
			for _, x := range fr {
				if x != x || math.IsInf(float64(x), 0) {
					return // not a position or a time (and NaN bits need not survive float64)
				}
			}
		}
		frames := make([][]geom.Vec3, len(pc.Frames))
		for k, fr := range pc.Frames {
			frames[k] = make([]geom.Vec3, pc.Verts)
			for i := range frames[k] {
				frames[k][i] = geom.Vec3{X: float64(fr[3*i]), Y: float64(fr[3*i+1]), Z: float64(fr[3*i+2])}
			}
		}
		got := writeCacheBytesTimes(format, frames, pc.Times)
		if !bytes.Equal(got, data[1:]) {
			t.Errorf("rewritten cache differs: got % x, want % x", got, data[1:])
		}
	})
}

// writeCacheBytes writes frames at times k/30 s into memory.
func writeCacheBytes(format CacheFormat, frames [][]geom.Vec3) []byte {
	times := make([]float32, len(frames))
	for k := range times {
		times[k] = float32(float64(k) / 30)
	}
	return writeCacheBytesTimes(format, frames, times)
}

// writeCacheBytesTimes writes frames at times (ignored by PC2) through a
// PointCacheWriter into memory.
func writeCacheBytesTimes(format CacheFormat, frames [][]geom.Vec3, times []float32) []byte {
	var ws memWriteSeeker
	w, err := NewPointCacheWriter(&ws, format, len(frames[0]), len(frames))
	if err != nil {
		panic(err)
	}
	for k, fr := range frames {
		t := 0.0
		if times != nil {
			t = float64(times[k])
		}
		if err := w.WriteFrame(t, fr); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return ws.buf
}

// memWriteSeeker is an in-memory io.WriteSeeker.
type memWriteSeeker struct {
	buf []byte
	off int
}

func (m *memWriteSeeker) Write(p []byte) (int, error) {
	if n := m.off + len(p); n > len(m.buf) {
		m.buf = append(m.buf, make([]byte, n-len(m.buf))...)
	}
	copy(m.buf[m.off:], p)
	m.off += len(p)
	return len(p), nil
}

func (m *memWriteSeeker) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case 0:
		m.off = int(off)
	case 1:
		m.off += int(off)
	case 2:
		m.off = len(m.buf) + int(off)
	}
	return int64(m.off), nil
}

// TestPointCacheShortNeedsRewriter: an MDD cache that falls short of its
// planned frames on a writer that cannot be rewritten is an error, not a
// file whose times run into its points.
func TestPointCacheShortNeedsRewriter(t *testing.T) {
	var ws memWriteSeeker
	w, err := NewPointCacheWriter(&ws, MDD, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFrame(0, make([]geom.Vec3, 1)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "cannot be rewritten") {
		t.Errorf("got err=%v, want one saying the writer cannot be rewritten", err)
	}
}

// TestReadOBJMaterial: vt are taken as material coordinates as they are
// (ReadOBJ would scale these to the world area and mirror clockwise ones),
// and a file without them, or clockwise in them, is an error.
func TestReadOBJMaterial(t *testing.T) {
	const quad = "v 0 0 0\nv 4 0 0\nv 4 4 0\nv 0 4 0\n"
	for _, c := range []struct {
		name, src string
		rest      []geom.Vec2 // want, by vertex
		err       string      // want in the error, "" for none
	}{
		{"untagged vt kept", quad + "vt 0.5 0.25\nvt 1.5 0.25\nvt 1.5 1.25\nvt 0.5 1.25\nf 1/1 2/2 3/3 4/4\n",
			[]geom.Vec2{{X: 0.5, Y: 0.25}, {X: 1.5, Y: 0.25}, {X: 1.5, Y: 1.25}, {X: 0.5, Y: 1.25}}, ""},
		{"no vt", quad + "f 1 2 3 4\n", nil, "needs a vt at every face corner"},
		{"clockwise", quad + "vt 0 0\nvt 0 1\nvt 1 1\nvt 1 0\nf 1/1 2/2 3/3 4/4\n", nil, "m.obj:9: face is clockwise in texture space"},
	} {
		m, err := ReadOBJMaterial(strings.NewReader(c.src), "m.obj")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: got err=%v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		for i, want := range c.rest {
			if m.Rest[i] != want {
				t.Errorf("%s: vertex %d rest got=%v, want=%v", c.name, i, m.Rest[i], want)
			}
		}
	}
}
