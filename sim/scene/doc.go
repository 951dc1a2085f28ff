// Package scene reads, validates and builds simulation set-ups: the scene
// JSON schema (documented on ParseScene), the built-in scenes, pin
// selectors and scripted pin paths (the curtain's gathering rail of Bender
// & Deul 2012 §7), and Build, which turns a Scene into a running
// cloth.Sim.
package scene
