package app

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
)

// The journal (drape view --journal FILE) writes down what a Loop did,
// so that a run played in the viewer can be taken again without it, step
// for step: the commands in the order the loop applied them, each with
// the number of steps the loop had taken before it. Between commands the
// loop's steps depend only on the simulation, so ReplayJournal, applying
// the same commands after the same numbers of steps, repeats the run to
// the bit on the same machine (the same GOMAXPROCS: the parallel
// reductions' chunks follow it). When the viewer took the steps (paced
// by the wall clock, coalescing mouse moves between them) does not
// matter; that is what made the viewer monkey's failures impossible to
// repeat (issue 39).
//
// One JSON object per line: first a journalHead, then journalLines.
// Only a single view is journalled; side by side's two loops are not.

// journalHead is the journal's first line: what NewLoop was given.
type journalHead struct {
	Scene      string  `json:"scene"`
	Paused     bool    `json:"paused,omitempty"`
	PauseAt    float64 `json:"pause_at,omitempty"`
	GOMAXPROCS int     `json:"gomaxprocs"`
}

// journalLine is a command applied after Steps steps, or without Cmd a
// mark that the loop had taken Steps steps (every journalMark steps, so
// that a replay runs as far as the journal goes), or with Interrupt the
// step after Steps steps, given up at its Interrupt-th poll for a
// command (Loop.poll): when that happens depends on the wall clock, so
// the replay gives the step up at the same poll, which leaves the model
// as the run left it.
type journalLine struct {
	Steps     int         `json:"steps"`
	Cmd       *journalCmd `json:"cmd,omitempty"`
	Interrupt int         `json:"interrupt,omitempty"`
}

// journalCmd is a Command as journalled: its Blocks only with
// CmdSetBlocks (the one command that reads them), which keeps a line of
// a pin drag short.
type journalCmd struct {
	Command
	Blocks *Blocks `json:",omitempty"` // shadows Command.Blocks
}

func journalled(c Command) *journalCmd {
	j := &journalCmd{Command: c}
	if c.Kind == CmdSetBlocks {
		j.Blocks = &c.Blocks
	}
	return j
}

// command returns the journalled Command.
func (j *journalCmd) command() Command {
	c := j.Command
	if j.Blocks != nil {
		c.Blocks = *j.Blocks
	}
	return c
}

// journalMark is how often, in steps, the journal notes the step count
// without a command.
const journalMark = 20

// journal writes a Loop's journal; a nil *journal writes nothing. A
// write error stops the journal (and is kept for Err), never the loop.
type journal struct {
	w   io.Writer
	err error
}

// command journals c, applied after steps steps.
func (j *journal) command(steps int, c Command) {
	if j != nil {
		j.write(journalLine{Steps: steps, Cmd: journalled(c)})
	}
}

func (j *journal) write(v any) {
	if j == nil || j.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err == nil {
		_, err = j.w.Write(append(b, '\n'))
	}
	j.err = err
}

// Replay is what ReplayJournal repeated.
type Replay struct {
	Steps    int // steps taken
	Commands int // commands applied
	// Interrupted counts the steps given up at a journalled poll
	// (journalLine.Interrupt); they are not in Steps.
	Interrupted int
	Loop        *Loop // the loop replayed, as the journal leaves it (nil if it could not be built)
	// Warning says why the replay may not repeat the run to the bit
	// ("" when nothing is known to differ).
	Warning string
}

// ReplayJournal builds the journal's scene from scenes and takes its run
// again: at each command's step count it applies the command as the
// journalled loop did. each, if not nil, is called after every step with
// the loop (tests read its state through Model). It stops at the
// journal's last line, and returns an error for a journal it cannot read
// or a scene it cannot build, or each's error.
func ReplayJournal(r io.Reader, scenes fs.FS, each func(l *Loop) error) (Replay, error) {
	var rep Replay
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return rep, err
		}
		return rep, errors.New("journal: empty")
	}
	var head journalHead
	if err := json.Unmarshal(sc.Bytes(), &head); err != nil || head.Scene == "" {
		return rep, fmt.Errorf("journal: line 1 is not a journal's head (%v)", err)
	}
	if head.GOMAXPROCS != runtime.GOMAXPROCS(0) {
		// Not an error: the run is repeated, only not to the bit.
		rep.Warning = fmt.Sprintf("written with GOMAXPROCS=%d, replayed with %d: the parallel sums round differently", head.GOMAXPROCS, runtime.GOMAXPROCS(0))
	}
	l, err := NewLoop(LoopOptions{Scenes: scenes, Scene: head.Scene, Paused: head.Paused, PauseAt: head.PauseAt})
	if err != nil {
		return rep, err
	}
	rep.Loop = l
	for n := 2; sc.Scan(); n++ {
		var ln journalLine
		if err := json.Unmarshal(sc.Bytes(), &ln); err != nil {
			return rep, fmt.Errorf("journal: line %d: %v", n, err)
		}
		if ln.Steps < l.calls {
			return rep, fmt.Errorf("journal: line %d: %d steps, but %d were taken already", n, ln.Steps, l.calls)
		}
		for l.calls < ln.Steps {
			l.step()
			rep.Steps++
			if each != nil {
				if err := each(l); err != nil {
					return rep, err
				}
			}
		}
		if ln.Interrupt > 0 {
			l.replayPoll = ln.Interrupt
			l.step()
			l.replayPoll = 0
			if l.polls < ln.Interrupt {
				return rep, fmt.Errorf("journal: line %d: the step was given up at poll %d, but the replay's step polled %d times", n, ln.Interrupt, l.polls)
			}
			rep.Interrupted++
		}
		if ln.Cmd != nil {
			l.apply(ln.Cmd.command())
			rep.Commands++
		}
	}
	return rep, sc.Err()
}
