// Package assets embeds the data files that ship inside the drape binary.
package assets

import "embed"

// Scenes holds the built-in scenes as scenes/<name>.json; see sim.ParseScene
// for the schema and sim.LoadScene for how names are looked up.
//
//go:embed scenes/*.json
var Scenes embed.FS
