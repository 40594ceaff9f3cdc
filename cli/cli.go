package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hpccgold/hpccgold/buildinfo"
)

// Env is what a subcommand gets: its own arguments and the output streams.
type Env struct {
	Args   []string
	Stdout io.Writer
	Stderr io.Writer
}

// command is one subcommand. run returns nil on success, an error wrapped
// with ErrFailed for "ran but found a failure" (exit 1), and any other error
// for bad usage or bad input (exit 2).
type command struct {
	name    string
	summary string
	run     func(env *Env) error
}

// ErrFailed marks an error as "the command ran and its check failed"
// (exit status 1) rather than bad usage or input (exit status 2).
var ErrFailed = errors.New("check failed")

// Main runs the CLI with args (without the program name) and returns the
// process exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commandList() {
		if c.name == args[0] {
			err := c.run(&Env{Args: args[1:], Stdout: stdout, Stderr: stderr})
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, ErrFailed):
				fmt.Fprintf(stderr, "hpccgold %s: %v\n", c.name, err)
				return 1
			default:
				fmt.Fprintf(stderr, "hpccgold %s: %v\n", c.name, err)
				return 2
			}
		}
	}
	fmt.Fprintf(stderr, "hpccgold: unknown command %q (see hpccgold --help)\n", args[0])
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "%s: golden models, vectors and RTL for INT-based datacenter congestion control (HPCC++, LDCP)\n\n", buildinfo.String())
	fmt.Fprintf(w, "Usage: hpccgold <command> [flags]\n\nCommands:\n")
	cmds := commandList()
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.name))
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'hpccgold <command> -h' for a command's flags.\n")
}

// newFlagSet returns a flag set for a subcommand whose usage text goes to
// env.Stderr and which reports errors instead of exiting.
func newFlagSet(env *Env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: hpccgold %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// noPositional returns an error naming the first positional argument left
// after flag parsing, for commands that take none.
func noPositional(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", strings.Join(fs.Args(), " "))
	}
	return nil
}

func runVersion(env *Env) error {
	fs := newFlagSet(env, "version", "version")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if err := noPositional(fs); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, buildinfo.String())
	return nil
}
