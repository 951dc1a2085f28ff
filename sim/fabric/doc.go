// Package fabric holds drape's fabric presets, taken from published
// measurements, and the textile industry's tests run on them as
// simulations: Peirce's cantilever bending length (Peirce 1930; ASTM
// D1388), the Cusick drape coefficient (BS 5058; ISO 9073-9) and the strip
// tensile test (ISO 13934-1's gauge length on ASTM D5035's 1-inch strip).
// docs/fabrics.md reports what they measure.
//
// Presets. A Preset is a data file, assets/materials/NAME.json (embedded
// as assets.Materials; this is the one place under sim/ that imports a
// package outside it, for data only): the cloth.ParamTable material keys
// and strainlimit.Table limits it sets, its source, the source's numbers
// in the source's own model ("measured") and the conversion, in words and
// with the fabric's own arithmetic. Builtin reads them once; Lookup finds
// one by name, and a scene's "material" key names one (package scene).
// Wang2011.Derive converts the database of Wang, O'Brien & Ramamoorthi
// 2011 to drape's linear orthotropic membrane and isotropic bending.
//
// Tests. Each builds its standard's specimen as a flat mesh (strip,
// annulus), pins what the standard clamps and brings the cloth to rest
// with cloth.Sim, in still air, without collisions or strain limiting:
//
//   - Cantilever: a 25 mm strip clamped at a platform edge; the overhang
//     at which the tip reaches 41.5° below the edge is twice the bending
//     length. Found by similarity (gravity scaled instead of the strip
//     slid) and the secant method; on a coarse, a fine and an adaptive
//     mesh, in warp and weft.
//   - Cusick: a 30 cm disc clamped over 18 cm; the projected shadow gives
//     the drape coefficient and its outline the nodes (folds).
//   - Tensile: a 25 × 200 mm strip held 0.2 % stretched between grips in
//     warp, weft or bias; the grip's pin reactions over the gauge strain
//     give the slope, checked against DirectionalModulus.
//
// Glossary: warp is material Y, weft material X (geom.Mesh.Rest), bias
// the direction between them; the bending length c = (k_b/(ρ·g))^⅓; DC
// the drape coefficient; a node one fold of the draped specimen.
//
// Files: preset.go (Preset, Library, Builtin), wang.go (the Wang et al.
// model and its conversion), mesh.go (specimens and the lab's
// simulation), elastica.go (the exact heavy cantilever, the tests'
// yardstick), cantilever.go, cusick.go, tensile.go (the tests),
// picture.go (pure-Go pictures of the drape), report.go (Run, RunAll and
// the Markdown tables of drape fabric-test).
package fabric
