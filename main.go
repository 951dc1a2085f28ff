// Command drape simulates cloth with the adaptive finite-element method of
// Bender & Deul 2012. main.go only parses flags and dispatches; the stepping
// loop and its statistics live in runner.go, the simulation in package sim,
// the built-in scenes in package assets.
//
// Usage:
//
//	drape run   --scene NAME|FILE [--steps N] [--out DIR] [--every K] [--stats FILE.json]
//	drape bench [--scenes a,b] [--steps N] [--warmup W]
//	drape view  (the interactive viewer; not built yet)
//	drape help
//
// Exit codes: 0 success, 1 a runtime error (a bad scene, an unstable
// simulation, an unwritable file), 2 a usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// command is one subcommand: run parses its own flags from args and returns
// the process exit code.
type command struct {
	name, args, summary string
	run                 func(args []string, stdout, stderr io.Writer) int
}

// commands is the dispatch table. The viewer slots in here: replace the
// "view" entry's run (and make plain "drape" call it, see run).
var commands = []command{
	{"run", "--scene NAME|FILE [--steps N] [--out DIR] [--every K] [--stats FILE.json]", "simulate a scene without a window", cmdRun},
	{"bench", "[--scenes a,b] [--steps N] [--warmup W]", "time scenes and print a markdown table", cmdBench},
	{"view", "", "open the interactive viewer", cmdView},
}

func init() { // appended here because usage reads commands
	commands = append(commands, command{"help", "", "print this help", func(_ []string, stdout, _ io.Writer) int { usage(stdout); return exitOK }})
}

// Exit codes.
const (
	exitOK      = 0
	exitRuntime = 1
	exitUsage   = 2
)

// run executes the command line args (without the program name) and
// returns the exit code. Plain "drape" prints the usage for now; it will
// open the viewer once that exists.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "drape: unknown command %q; run 'drape help' for the list\n", args[0])
	return exitUsage
}

// usage prints the list of subcommands.
func usage(w io.Writer) {
	fmt.Fprintln(w, "drape simulates cloth (Bender & Deul 2012, adaptive FEM).")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  drape %-6s %s", c.name, c.args), " "))
		fmt.Fprintf(w, "         %s\n", c.summary)
	}
	fmt.Fprintln(w, "\nRun 'drape COMMAND -h' for a command's flags.")
}

// newFlagSet returns a flag set that reports errors through parseFlags
// rather than printing them.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("drape "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args into fs. It returns −1 to go on, or the exit code:
// 0 after printing the help for -h, 2 after a one-line error on stderr.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(stdout, "Usage of %s:\n", fs.Name())
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		return exitUsage
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage
	}
	return -1
}

// fail prints a one-line error for command name and returns code.
func fail(stderr io.Writer, name string, code int, err error) int {
	fmt.Fprintf(stderr, "drape %s: %s\n", name, strings.ReplaceAll(err.Error(), "\n", "; "))
	return code
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run")
	var o runOptions
	fs.StringVar(&o.scene, "scene", "hanging", "built-in scene `NAME` or scene FILE.json")
	fs.IntVar(&o.steps, "steps", 0, "number of steps `N`; 0 runs the scene's duration")
	fs.StringVar(&o.out, "out", "", "write OBJ frames to `DIR` (frame_000000.obj, …)")
	fs.IntVar(&o.every, "every", 10, "with --out, write a frame every `K` steps (and step 0)")
	fs.StringVar(&o.stats, "stats", "", "write run statistics as JSON to `FILE`")
	if code := parseFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	if o.steps < 0 {
		return fail(stderr, "run", exitUsage, fmt.Errorf("--steps must be non-negative, got %d", o.steps))
	}
	if o.every < 1 {
		return fail(stderr, "run", exitUsage, fmt.Errorf("--every must be at least 1, got %d", o.every))
	}
	o.progress = newProgress(stdout)
	if err := runScene(o, stdout); err != nil {
		return fail(stderr, "run", exitRuntime, err)
	}
	return exitOK
}

func cmdBench(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("bench")
	scenes := fs.String("scenes", "hanging,curtain", "comma-separated scene `NAMES` or files")
	steps := fs.Int("steps", 200, "timed steps `N` per scene")
	warmup := fs.Int("warmup", 5, "untimed steps `W` before timing")
	if code := parseFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	if *steps < 1 || *warmup < 0 {
		return fail(stderr, "bench", exitUsage, fmt.Errorf("--steps must be at least 1 and --warmup non-negative, got %d and %d", *steps, *warmup))
	}
	var names []string
	for _, n := range strings.Split(*scenes, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return fail(stderr, "bench", exitUsage, fmt.Errorf("--scenes is empty"))
	}
	if err := bench(names, *warmup, *steps, stdout); err != nil {
		return fail(stderr, "bench", exitRuntime, err)
	}
	return exitOK
}

// cmdView is the dispatch point of the interactive viewer, which is not
// built yet.
func cmdView(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "drape view: the viewer is not built yet")
	return exitRuntime
}
