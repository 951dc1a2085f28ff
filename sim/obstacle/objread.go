package obstacle

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"drape/sim/geom"
)

// maxOBJBytes bounds the size of an obstacle's OBJ file.
const maxOBJBytes = 256 << 20

// readOBJ reads the v and f statements of a Wavefront OBJ file as a
// triangle soup, coordinates multiplied by scale. It does not use
// meshio.ReadOBJ because that reader builds cloth: it requires a
// consistently oriented manifold with a planar parameterisation, which a
// closed obstacle such as the bunny has not. Polygons are fan-triangulated
// (c0, ck, ck+1); corners may be i, i/t, i/t/n or i//n, 1-based, negative
// counting back from the latest vertex. Faces that use a vertex twice are
// dropped (they have no area); vertices no face uses are dropped. Errors
// have the form "name:LINE: message".
func readOBJ(r io.Reader, name string, scale float64) ([]geom.Vec3, [][3]int32, error) {
	var pos []geom.Vec3
	var tris [][3]int32
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	var corners []int32
	read := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		read += len(text) + 1
		if read > maxOBJBytes {
			return nil, nil, bad("file larger than %d MiB", maxOBJBytes>>20)
		}
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "v":
			if len(f) < 4 {
				return nil, nil, bad("v needs 3 coordinates")
			}
			var c [3]float64
			for i := range c {
				x, err := strconv.ParseFloat(f[1+i], 64)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x*scale) > MaxCoordinate {
					return nil, nil, bad("bad coordinate %q", f[1+i])
				}
				c[i] = x * scale
			}
			if len(pos) >= 3*geom.MaxTriangles {
				return nil, nil, bad("too many vertices")
			}
			pos = append(pos, geom.Vec3{X: c[0], Y: c[1], Z: c[2]})
		case "f":
			if len(f) < 4 {
				return nil, nil, bad("f needs at least 3 corners")
			}
			corners = corners[:0]
			for _, c := range f[1:] {
				if i := strings.IndexByte(c, '/'); i >= 0 {
					c = c[:i]
				}
				k, err := strconv.ParseInt(c, 10, 64)
				if err != nil || k == 0 {
					return nil, nil, bad("bad vertex index %q", c)
				}
				if k < 0 {
					k += int64(len(pos)) + 1
				}
				if k < 1 || k > int64(len(pos)) {
					return nil, nil, bad("vertex index %s out of range (%d vertices so far)", c, len(pos))
				}
				corners = append(corners, int32(k-1))
			}
			for k := 1; k+1 < len(corners); k++ {
				t := [3]int32{corners[0], corners[k], corners[k+1]}
				if t[0] == t[1] || t[1] == t[2] || t[2] == t[0] {
					continue
				}
				if len(tris) >= geom.MaxTriangles {
					return nil, nil, bad("more than %d triangles", geom.MaxTriangles)
				}
				tris = append(tris, t)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if len(tris) == 0 {
		return nil, nil, fmt.Errorf("%s: no faces", name)
	}
	// Compact: keep only the vertices faces use, in order.
	remap := make([]int32, len(pos))
	for i := range remap {
		remap[i] = -1
	}
	var out []geom.Vec3
	for f := range tris {
		for c, v := range tris[f] {
			if remap[v] < 0 {
				remap[v] = int32(len(out))
				out = append(out, pos[v])
			}
			tris[f][c] = remap[v]
		}
	}
	return out, tris, nil
}
