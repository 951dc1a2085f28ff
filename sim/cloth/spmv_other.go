//go:build !amd64 || purego

package cloth

func blockRows32(rowPtr, col []int32, val [][9]float32, oppPtr, oppCol []int32, oppVal []float32, s, out []vec3f32, lo, hi int) {
	blockRows32Go(rowPtr, col, val, oppPtr, oppCol, oppVal, s, out, lo, hi)
}
