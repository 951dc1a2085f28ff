// Package headless runs drape's commands that need no window: "drape run"
// (step a scene, write OBJ or PLY frames and statistics, or with --cache
// one fixed mesh and a point cache of the run sampled on it, cache.go) and
// "drape bench" (the comparison of Bender & Deul 2012 §7: the same scene
// at full resolution and adaptively, in interleaved turns, with the
// accuracy loss measured as the distance between the two surfaces; with
// --scene all, every built-in scene's step time in one table,
// benchall.go), with the progress output and the PNG plots they share. It
// imports no GL, so it builds and tests without cgo.
package headless
