package app

import (
	"testing"
	"time"

	"drape/sim/detail"
	"drape/sim/geom"
)

// TestDetailWorker: the worker details the newest request in the
// background, into a surface finer than the snapshot's (Loop level 1
// quadruples the faces), and a burst of requests is answered for the
// last one, not queued.
func TestDetailWorker(t *testing.T) {
	l := newTestLoop(t, "hanging", true)
	for i := 0; i < 20; i++ {
		l.step()
	}
	snap := l.Snapshots().Acquire()
	if len(snap.Rest) != 2*snap.NumVerts() {
		t.Fatalf("snapshot carries %d material coordinates for %d vertices", len(snap.Rest), snap.NumVerts())
	}
	w := newDetailWorker()
	defer w.Close()
	for seq := uint64(1); seq <= 5; seq++ {
		w.Request(&snap.Surface, snap.Obstacles, seq, 1)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		m, seq, err, _ := w.Result()
		if err != nil {
			t.Fatal(err)
		}
		if seq == 5 {
			if got, want := len(m.Tris)/3, 4*snap.NumTris(); got != want {
				t.Errorf("detail faces got=%d, want %d (level 1: four per face)", got, want)
			}
			if err := m.Validate(); err != nil {
				t.Error(err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no result for the last request after 20 s (newest %d)", seq)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFrameOfObstacles: the frame the detail gets carries the snapshot's
// obstacles at their snapshot poses, with their own signed distances.
func TestFrameOfObstacles(t *testing.T) {
	l := newTestLoop(t, "ground", true)
	l.step()
	snap := l.Snapshots().Acquire()
	if len(snap.Obstacles) == 0 {
		t.Fatal("the ground scene's snapshot has no obstacles")
	}
	var f detail.Frame
	frameOf(&snap.Surface, snap.Obstacles, &f, 1)
	if len(f.Obstacles) != len(snap.Obstacles) {
		t.Fatalf("frame has %d obstacles, snapshot %d", len(f.Obstacles), len(snap.Obstacles))
	}
	for i, o := range snap.Obstacles {
		for _, p := range []geom.Vec3{{X: 0.1, Y: 0.5, Z: -0.2}, {Y: -1}, {X: 2, Y: 0.01, Z: 3}} {
			want, _ := o.Shape.SignedDistanceAt(o.Pose, p)
			if got := f.Obstacles[i].SignedDistance(p); got != want {
				t.Errorf("obstacle %d at %v: signed distance %g, want %g", i, p, got, want)
			}
		}
	}
	frameOf(&snap.Surface, nil, &f, 1)
	if len(f.Obstacles) != 0 {
		t.Errorf("a frame without obstacles kept %d", len(f.Obstacles))
	}
}
