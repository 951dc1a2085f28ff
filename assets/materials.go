package assets

import "embed"

// Materials holds the fabric presets as materials/<name>.json, each with
// the published measurements it comes from and how they were converted
// (package fabric reads them; a scene names one with "material").
//
//go:embed materials/*.json
var Materials embed.FS
