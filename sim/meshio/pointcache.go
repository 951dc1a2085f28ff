package meshio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"drape/sim/geom"
)

// CacheFormat is a point-cache file format: one fixed vertex list, its
// positions frame after frame, float32 x, y, z per vertex, in the
// coordinates of the mesh it animates. Both formats are what Blender's
// Mesh Cache modifier reads (and 3ds Max, Maya, Houdini and LightWave
// through their own point-cache importers).
type CacheFormat uint8

// The point-cache formats. The zero CacheFormat is none.
const (
	// PC2 is 3ds Max's Point Cache 2, little-endian: a 32-byte header,
	// the 12 bytes "POINTCACHE2\0", int32 version (1), int32 vertex
	// count, float32 start frame, float32 sampling rate (frames per
	// sample), int32 frame count; then the frames.
	PC2 CacheFormat = iota + 1
	// MDD is LightWave's Motion Designer format, big-endian: int32 frame
	// count, int32 vertex count, one float32 time (s) per frame; then the
	// frames (Blender's io_shape_mdd reads and writes this layout).
	MDD
)

// String returns the format's file extension, "pc2" or "mdd".
func (f CacheFormat) String() string {
	switch f {
	case PC2:
		return "pc2"
	case MDD:
		return "mdd"
	}
	return fmt.Sprintf("CacheFormat(%d)", f)
}

// ParseCacheFormat returns the format named "pc2" or "mdd".
func ParseCacheFormat(s string) (CacheFormat, error) {
	switch s {
	case "pc2":
		return PC2, nil
	case "mdd":
		return MDD, nil
	}
	return 0, fmt.Errorf("unknown point-cache format %q: want pc2 or mdd", s)
}

// pc2Magic opens every PC2 file.
const pc2Magic = "POINTCACHE2\x00"

// pc2HeaderLen and the offset of its frame count, bytes.
const (
	pc2HeaderLen    = 32
	pc2FramesOffset = 28
)

// maxCacheVerts caps the vertex count a cache may declare, as ReadOBJ
// caps an OBJ's.
const maxCacheVerts = maxOBJVerts

// PointCache is a whole point cache, as ReadPointCache returns it.
type PointCache struct {
	Format CacheFormat
	Verts  int // vertices per frame
	// Start and Sampling are the PC2 header's start frame and frames per
	// sample; zero for MDD.
	Start, Sampling float32
	// Times is the MDD time of each frame, s; nil for PC2.
	Times []float32
	// Frames[k] holds frame k: vertex i at Frames[k][3*i : 3*i+3].
	Frames [][]float32
}

// PointCacheWriter writes a point cache frame by frame, so that a long run
// never holds its frames in memory. PC2 frames start at frame 0 with one
// sample per frame (Start 0, Sampling 1: frames are counted at the rate
// the cache was taken at, as 3ds Max counts them); MDD carries each
// frame's time.
type PointCacheWriter struct {
	w       io.WriteSeeker
	bw      *bufio.Writer
	format  CacheFormat
	verts   int
	planned int       // frames the header was written for
	times   []float32 // MDD times of the frames written, s
	buf     []byte
	err     error
}

// NewPointCacheWriter writes the header of a cache of frames frames of
// verts vertices in format to w and returns the writer of its frames.
// frames is the count planned: Close rewrites the header (and, for MDD,
// moves the points) when fewer were written, which needs w to be an
// io.ReaderAt, io.WriterAt and Truncate(int64) error (an *os.File) for
// MDD.
func NewPointCacheWriter(w io.WriteSeeker, format CacheFormat, verts, frames int) (*PointCacheWriter, error) {
	if verts < 1 || verts > maxCacheVerts || frames < 1 || frames > math.MaxInt32 {
		return nil, fmt.Errorf("point cache: %d vertices and %d frames: want 1 to %d vertices and at least one frame", verts, frames, maxCacheVerts)
	}
	c := &PointCacheWriter{w: w, bw: bufio.NewWriterSize(w, 1<<16), format: format, verts: verts, planned: frames}
	switch format {
	case PC2:
		var h [pc2HeaderLen]byte
		copy(h[:12], pc2Magic)
		binary.LittleEndian.PutUint32(h[12:], 1)
		binary.LittleEndian.PutUint32(h[16:], uint32(verts))
		binary.LittleEndian.PutUint32(h[20:], math.Float32bits(0)) // start frame
		binary.LittleEndian.PutUint32(h[24:], math.Float32bits(1)) // sampling: every frame
		binary.LittleEndian.PutUint32(h[28:], uint32(frames))
		c.bw.Write(h[:])
	case MDD:
		// The times are written by Close, once known; reserve them.
		var h [8]byte
		binary.BigEndian.PutUint32(h[0:], uint32(frames))
		binary.BigEndian.PutUint32(h[4:], uint32(verts))
		c.bw.Write(h[:])
		c.bw.Write(make([]byte, 4*frames))
	default:
		return nil, fmt.Errorf("point cache: unknown format %v", format)
	}
	return c, nil
}

// Frames returns the number of frames written so far.
func (c *PointCacheWriter) Frames() int { return len(c.times) }

// WriteFrame appends one frame, the positions pos (one per vertex, rounded
// to float32) at time t (s; kept by MDD only). It returns an error when
// len(pos) is not the vertex count, when the planned frames are all
// written, or when writing fails.
func (c *PointCacheWriter) WriteFrame(t float64, pos []geom.Vec3) error {
	if c.err != nil {
		return c.err
	}
	if len(pos) != c.verts {
		return fmt.Errorf("point cache: frame of %d vertices, want %d", len(pos), c.verts)
	}
	if len(c.times) == c.planned {
		return fmt.Errorf("point cache: all %d planned frames are written", c.planned)
	}
	c.buf = c.buf[:0]
	order := c.order()
	for _, p := range pos {
		c.buf = order.AppendUint32(c.buf, math.Float32bits(float32(p.X)))
		c.buf = order.AppendUint32(c.buf, math.Float32bits(float32(p.Y)))
		c.buf = order.AppendUint32(c.buf, math.Float32bits(float32(p.Z)))
	}
	if _, err := c.bw.Write(c.buf); err != nil {
		c.err = fmt.Errorf("writing point cache: %w", err)
		return c.err
	}
	c.times = append(c.times, float32(t))
	return nil
}

func (c *PointCacheWriter) order() binary.AppendByteOrder {
	if c.format == MDD {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// Close flushes the frames and completes the header: the frame count when
// fewer frames than planned were written, and MDD's times. An MDD cache
// that fell short is compacted, its points moved up to follow the shorter
// list of times, so that it stays a valid cache of the frames written. It
// does not close the underlying writer.
func (c *PointCacheWriter) Close() error {
	if c.err != nil {
		return c.err
	}
	if err := c.bw.Flush(); err != nil {
		return fmt.Errorf("writing point cache: %w", err)
	}
	n := len(c.times)
	if n < c.planned {
		if err := c.shorten(n); err != nil {
			return fmt.Errorf("point cache of %d of %d planned frames: %w", n, c.planned, err)
		}
	}
	switch c.format {
	case PC2:
		if n < c.planned {
			var b [4]byte
			binary.LittleEndian.PutUint32(b[:], uint32(n))
			if err := writeAt(c.w, pc2FramesOffset, b[:]); err != nil {
				return fmt.Errorf("writing point cache header: %w", err)
			}
		}
	case MDD:
		b := binary.BigEndian.AppendUint32(nil, uint32(n))
		b = binary.BigEndian.AppendUint32(b, uint32(c.verts))
		for _, t := range c.times {
			b = binary.BigEndian.AppendUint32(b, math.Float32bits(t))
		}
		if err := writeAt(c.w, 0, b); err != nil {
			return fmt.Errorf("writing point cache header: %w", err)
		}
	}
	_, err := c.w.Seek(0, io.SeekEnd)
	return err
}

// shorten rewrites an MDD cache planned for c.planned frames as one of n:
// its points, written after c.planned times, move up by 4·(planned − n)
// bytes and the file is cut after them. PC2 needs nothing here: its
// frames follow a fixed header.
func (c *PointCacheWriter) shorten(n int) error {
	if c.format != MDD {
		return nil
	}
	type rewriter interface {
		io.ReaderAt
		io.WriterAt
		Truncate(int64) error
	}
	f, ok := c.w.(rewriter)
	if !ok {
		return errors.New("MDD needs its frame count up front, and this writer cannot be rewritten")
	}
	src, dst := int64(8+4*c.planned), int64(8+4*n)
	size := int64(n) * int64(c.verts) * 12
	buf := make([]byte, 1<<20)
	// dst < src: copying front to back reads every byte before it is
	// overwritten.
	for off := int64(0); off < size; off += int64(len(buf)) {
		chunk := buf[:min(int64(len(buf)), size-off)]
		if _, err := f.ReadAt(chunk, src+off); err != nil {
			return err
		}
		if _, err := f.WriteAt(chunk, dst+off); err != nil {
			return err
		}
	}
	return f.Truncate(dst + size)
}

// writeAt writes b at offset off of w.
func writeAt(w io.WriteSeeker, off int64, b []byte) error {
	if _, err := w.Seek(off, io.SeekStart); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

// ReadPointCache reads a whole point cache in format. It checks the
// header (PC2's magic and version, counts in range) and that the file
// holds every frame the header declares, and never allocates more than
// the data it has read justifies.
func ReadPointCache(r io.Reader, format CacheFormat) (PointCache, error) {
	br := bufio.NewReader(r)
	c := PointCache{Format: format}
	var frames int
	switch format {
	case PC2:
		var h [pc2HeaderLen]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return c, fmt.Errorf("PC2 header: %w", err)
		}
		if !bytes.Equal(h[:12], []byte(pc2Magic)) {
			return c, fmt.Errorf("PC2 header: starts with %q, want %q", h[:12], pc2Magic)
		}
		if v := int32(binary.LittleEndian.Uint32(h[12:])); v != 1 {
			return c, fmt.Errorf("PC2 header: version %d, want 1", v)
		}
		c.Verts = int(int32(binary.LittleEndian.Uint32(h[16:])))
		c.Start = math.Float32frombits(binary.LittleEndian.Uint32(h[20:]))
		c.Sampling = math.Float32frombits(binary.LittleEndian.Uint32(h[24:]))
		frames = int(int32(binary.LittleEndian.Uint32(h[28:])))
	case MDD:
		var h [8]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return c, fmt.Errorf("MDD header: %w", err)
		}
		frames = int(int32(binary.BigEndian.Uint32(h[0:])))
		c.Verts = int(int32(binary.BigEndian.Uint32(h[4:])))
	default:
		return c, fmt.Errorf("point cache: unknown format %v", format)
	}
	if c.Verts < 1 || c.Verts > maxCacheVerts || frames < 0 {
		return c, fmt.Errorf("%v header: %d vertices and %d frames: want 1 to %d vertices and a non-negative frame count", format, c.Verts, frames, maxCacheVerts)
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if format == MDD {
		order = binary.BigEndian
		var b [4]byte
		for k := 0; k < frames; k++ {
			if _, err := io.ReadFull(br, b[:]); err != nil {
				return c, fmt.Errorf("MDD time of frame %d: %w", k, err)
			}
			c.Times = append(c.Times, math.Float32frombits(order.Uint32(b[:])))
		}
	}
	var buf []byte
	for k := 0; k < frames; k++ {
		var err error
		if buf, err = readBytes(br, buf[:0], 12*c.Verts); err != nil {
			return c, fmt.Errorf("%v frame %d of %d: %w", format, k, frames, err)
		}
		fr := make([]float32, 3*c.Verts)
		for i := range fr {
			fr[i] = math.Float32frombits(order.Uint32(buf[4*i:]))
		}
		c.Frames = append(c.Frames, fr)
	}
	if _, err := br.ReadByte(); err == nil {
		return c, fmt.Errorf("%v: data after the %d frames the header declares", format, frames)
	}
	return c, nil
}

// readBytes appends n bytes read from r to buf, growing it by at most
// 64 KiB ahead of the data read, so that a header that declares more than
// the file holds costs no more memory than the file.
func readBytes(r io.Reader, buf []byte, n int) ([]byte, error) {
	for len(buf) < n {
		k := min(n-len(buf), 1<<16)
		buf = append(buf, make([]byte, k)...)
		if _, err := io.ReadFull(r, buf[len(buf)-k:]); err != nil {
			return buf, err
		}
	}
	return buf, nil
}
