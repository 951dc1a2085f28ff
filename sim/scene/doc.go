// Package scene reads, validates, builds and saves simulation set-ups: the
// scene JSON schema (documented on ParseScene), the built-in scenes, pin
// selectors and scripted pin paths (the curtain's gathering rail of Bender
// & Deul 2012 §7), Build, which turns a Scene into a running cloth.Sim,
// and Encode/WriteFile, which write a Scene back in the form ParseScene
// reads (the viewer's Save scene).
//
// # Adding a parameter block
//
// Parameter blocks ("params", "adapt"; later "contact", "strain" and the
// "springs" block of a second cloth model selected by "model") all go the
// same way, through a param.Table that names each key, unit, default and
// range once:
//
//  1. In the package that owns the parameters, declare the value type
//     (say strain.Params), its table (strain.Table = param.Table[Params]{…},
//     with Group set for the fields that get a viewer control),
//     DefaultParams from Table.SetDefaults, and Validate from
//     Table.Validate plus any cross-field checks.
//  2. Here, add a field to Scene (a pointer when the block is optional:
//     nil means "absent"), a json.RawMessage field to sceneJSON and a
//     value field to sceneOut, decode it in ParseScene with decodeBlock
//     over the defaults, and validate it in Scene.Validate.
//  3. Apply it in Build (or, for a block the viewer edits, through the
//     app's Blocks: see the steps in its doc comment, app/blocks.go).
//  4. Add {"name", Table.Markdown()} to docTables in docs_test.go
//     and run go test ./sim/scene -run TestDocTables -update, which
//     writes the table into docs/scenes.md between the markers you add
//     there.
//
// A list of objects ("obstacles") is a []T field with JSON tags in Scene,
// sceneJSON and sceneOut, validated element by element like Pins; a second
// model ("model": "springs") is a string field checked in Validate that
// Build (or the app's model factory) switches on.
package scene
