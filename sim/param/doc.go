// Package param holds the parameter schema shared by every tunable block
// of the simulation: a Table of Fields, each naming one parameter once —
// its JSON key, viewer label, unit, default, valid closed range, viewer
// slider range, description and sidebar group — with an accessor into the
// parameter struct. From that one table come the JSON codec of scene files,
// saved scenes and the viewer's --state file (the same key everywhere), the
// range checks and their error messages, the viewer's sliders and the
// Markdown tables of docs/scenes.md.
//
// The package implements no paper; it is plumbing for the parameters of
// Bender & Deul 2012 (§4.2 material, §5 adaptivity) and those of later
// models.
package param
