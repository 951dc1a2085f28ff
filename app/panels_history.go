package app

import "github.com/inkyblackness/imgui-go/v4"

// The undo history's controls (history.go): the Undo and Redo buttons of
// the Scene panel, and the gesture bookkeeping that makes the edits of
// one held control one step.

// releaseGesture ends the panels' gesture once no control is held (called
// at the start of every frame's panels): the next edit is a new step of
// the history. While a slider is dragged, or a value typed after Ctrl +
// click, the control stays active and its edits share one gesture.
func (u *uiState) releaseGesture() {
	if !imgui.IsAnyItemActive() {
		u.gesture = 0
	}
}

// anyItemActive reports whether a control is held: Ctrl+Z then waits,
// so that an undo does not land in the middle of a slider's drag.
func anyItemActive() bool { return imgui.IsAnyItemActive() }

// historyButtons draws Undo and Redo, greyed out when there is nothing
// to undo or redo, with a tooltip naming the step; side by side, the
// step they change back in both runs.
func (u *uiState) historyButtons(s *Snapshot, a *uiAction) {
	h := &s.History
	if u.pair != nil {
		h = &u.pair.history
	}
	button := func(label, key, what, none string, n int) bool {
		// imgui-go v4 leaves BeginDisabled out (beta in Dear ImGui
		// 1.85): the item flag disables the button, the alpha greys it.
		if n == 0 {
			imgui.PushItemFlag(imgui.ItemFlagsDisabled, true)
			imgui.PushStyleVarFloat(imgui.StyleVarAlpha, 0.5*imgui.CurrentStyle().Alpha())
		}
		pressed := imgui.Button(label)
		if n == 0 {
			imgui.PopStyleVar()
			imgui.PopItemFlag()
		}
		u.mark(key)
		if imgui.IsItemHoveredV(imgui.HoveredFlagsAllowWhenDisabled) {
			if n == 0 {
				imgui.SetTooltip(none)
			} else {
				imgui.SetTooltip(what)
			}
		}
		return pressed && n > 0
	}
	if button("Undo (Ctrl+Z)", "undo", "Undo: "+h.UndoLabel, "Nothing to undo", h.Undo) {
		a.undo = true
	}
	imgui.SameLine()
	if button("Redo (Ctrl+Shift+Z)", "redo", "Redo: "+h.RedoLabel, "Nothing to redo", h.Redo) {
		a.redo = true
	}
}
