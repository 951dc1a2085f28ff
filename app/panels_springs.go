package app

import (
	"fmt"
	"time"

	"github.com/inkyblackness/imgui-go/v4"

	"drape/sim/springs"
)

// springsPanel edits the parameters of the mass-spring cloth
// (springs.ParamTable, groups "Springs" and "Subdivision") and shows its
// particle counts and the largest stable step StableStep estimates. The
// sliders edit the panels' copy of the block (uiState.edit), which
// re-syncs from the snapshot once every sent edit is answered (as the
// Material sliders do).
func (u *uiState) springsPanel(s *Snapshot, a *uiAction) {
	info := &s.Springs
	if imgui.CollapsingHeaderV("Springs (Olson & Rudnick)", imgui.TreeNodeFlagsDefaultOpen) {
		ch := tableControls(springs.ParamTable, "Springs", &u.edit.Springs, func(key string) {
			if key == "dt" {
				u.mark("springs dt")
				stableStepLine(info.StableStep, s.Blocks.Springs.Dt)
			}
		})
		if ch {
			u.send(BlockSprings, a)
		}
		u.pacingControls(a)
		u.clothColorEdit()
	}
	if imgui.CollapsingHeaderV("Subdivision", imgui.TreeNodeFlagsDefaultOpen) {
		imgui.Textf("variant: %s", variantName(info.Variant))
		if tableControls(springs.ParamTable, "Subdivision", &u.edit.Springs, nil) {
			u.send(BlockSprings, a)
		}
		n := info.Counts
		imgui.Textf("particles: %d active, %d fixed", n.Active, n.Fixed)
		imgui.Textf("  %d interpolated;  %d springs;  depth %d", n.Interpolated, n.Springs, n.Depth)
		if t := u.toggles; t.wireframe && t.wireByGen {
			u.generationKey()
			textDisabled("(generation = subdivision layer)")
		} else {
			textDisabled("W shows the wireframe by layer")
		}
	}
	if s.EditErr != "" {
		imgui.PushStyleColor(imgui.StyleColorText, imgui.Vec4{X: 1, Y: 0.45, Z: 0.40, W: 1})
		imgui.PushTextWrapPosV(0)
		imgui.Text(s.EditErr)
		imgui.PopTextWrapPos()
		imgui.PopStyleColor()
	}
}

// stableStepLine shows the stable step estimate, in red when Δt exceeds it.
func stableStepLine(stable, dt float64) {
	text := fmt.Sprintf("  stable Δt ≤ %.3g ms (estimate)", 1e3*stable)
	if dt > stable {
		imgui.PushStyleColor(imgui.StyleColorText, imgui.Vec4{X: 1, Y: 0.45, Z: 0.40, W: 1})
		imgui.Text(text + ": Δt is above it")
		imgui.PopStyleColor()
		return
	}
	textDisabled(text)
}

// variantName names a subdivision variant as springs_scene's suffix does.
func variantName(v springs.Variant) string {
	switch v {
	case springs.UniformSubdivision:
		return "uniform subdivision"
	case springs.DynamicSubdivision:
		return "dynamic subdivision"
	}
	return "no subdivision"
}

// modelName says which cloth model s comes from, for the Scene panel.
func modelName(s *Snapshot) string {
	if s.Springs.On {
		return "mass-spring cloth (Olson & Rudnick)"
	}
	return "FEM cloth (Bender & Deul)"
}

// plotCount is the count the Stats panel plots over time: particles for
// the spring cloth, triangles for the FEM cloth.
func plotCount(s *Snapshot) int {
	if s.Springs.On {
		return s.Springs.Particles()
	}
	return s.Stats.Triangles
}

// plotLabel labels the count plot.
func plotLabel(s *Snapshot) string {
	if s.Springs.On {
		return fmt.Sprintf("particles (%d)", s.Springs.Particles())
	}
	return fmt.Sprintf("triangles (%d)", s.Stats.Triangles)
}

// springsStats replaces the FEM's solver lines of the Stats panel for the
// spring cloth: explicit substeps instead of PCG iterations.
func springsStats(s *Snapshot) {
	n := s.Springs.Counts
	imgui.Textf("  + snapshot (normals) %4.1f", float64(s.Stats.Snapshot)/float64(time.Millisecond))
	imgui.Textf("explicit    %6d substeps/step (depth %d)", 1<<n.Depth, n.Depth)
}
