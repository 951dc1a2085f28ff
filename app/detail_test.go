package app

import (
	"testing"
	"time"
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
		w.Request(&snap.Surface, seq, 1)
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
