// Package assets embeds the data files that ship inside the drape binary.
package assets

import "embed"

// Scenes holds the built-in scenes as scenes/<name>.json, with the mesh
// files they name (scenes/*.obj; bunny_10k.obj is the Stanford bunny as
// the PositionBasedDynamics project ships it, MIT licence in
// scenes/bunny_10k.LICENSE); see scene.ParseScene for the schema and
// scene.LoadScene for how names are looked up.
//
//go:embed scenes/*.json scenes/*.obj scenes/*.LICENSE
var Scenes embed.FS
