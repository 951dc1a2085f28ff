package assets

import _ "embed"

// UIFont is DejaVu Sans (fonts/DejaVuSans.ttf, Bitstream Vera / DejaVu
// licence in fonts/DejaVuSans-LICENSE.txt), the viewer's panel font. It is
// used instead of Dear ImGui's built-in ProggyClean because the panels
// label quantities with Greek letters and units (ν, ρ, Δt, kg/m²), which
// ProggyClean lacks, and because it reads better at 15 px.
//
//go:embed fonts/DejaVuSans.ttf
var UIFont []byte
