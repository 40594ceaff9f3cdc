package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/hpccgold/hpccgold/buildinfo"
)

// Env is what a subcommand gets: its own arguments, a context that is
// cancelled on SIGINT and SIGTERM (so writers can clean up), and the
// standard streams. Stdout records its first write error: Run fails the
// command when it is set, so every command's output writes are checked.
type Env struct {
	Ctx    context.Context
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// sub returns a copy of env for a subcommand whose arguments are args.
func (env *Env) sub(args []string) *Env {
	s := *env
	s.Args = args
	return &s
}

// context returns env.Ctx, or context.Background() when it is nil (an Env
// built by a test).
func (env *Env) context() context.Context {
	if env.Ctx == nil {
		return context.Background()
	}
	return env.Ctx
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

// Exit statuses (docs/cli.md).
const (
	ExitOK     = 0 // the command did what was asked and every check passed
	ExitFailed = 1 // the command ran and a check failed (ErrFailed)
	ExitUsage  = 2 // bad usage, bad input, or an output that could not be written
)

// Main runs the CLI with args (without the program name) on the process's
// standard input, with a context cancelled by the first SIGINT or SIGTERM
// (commands stop and clean up; a second signal kills the process at once,
// the default action), and returns the process exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs) // the next signal takes its default action
			fmt.Fprintf(stderr, "hpccgold: %v: stopping (send it again to kill)\n", sig)
			cancel()
		case <-ctx.Done():
		}
	}()
	return Run(ctx, args, os.Stdin, stdout, stderr)
}

// Run runs the CLI with args (without the program name), ctx, and the
// given streams, and returns the exit status: ExitOK, ExitFailed or
// ExitUsage. A failed write to stdout fails the command ("write stdout:
// ..."): ExitUsage unless a check already failed (ExitFailed stays).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &errWriter{w: stdout}
	code := dispatch(ctx, args, stdin, out, stderr)
	if out.err != nil && !out.reported {
		fmt.Fprintf(stderr, "hpccgold: %v\n", out.err)
	}
	if out.err != nil && code == ExitOK {
		code = ExitUsage
	}
	return code
}

func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout *errWriter, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	for _, c := range commandList() {
		if c.name == args[0] {
			err := c.run(&Env{Ctx: ctx, Args: args[1:], Stdin: stdin, Stdout: stdout, Stderr: stderr})
			switch {
			case err == nil:
				return ExitOK
			case errors.Is(err, flag.ErrHelp):
				return ExitOK
			}
			fmt.Fprintf(stderr, "hpccgold %s: %v\n", c.name, err)
			// The command's error already names the failed write.
			stdout.reported = stdout.err != nil && errors.Is(err, stdout.err)
			if errors.Is(err, ErrFailed) {
				return ExitFailed
			}
			return ExitUsage
		}
	}
	fmt.Fprintf(stderr, "hpccgold: unknown command %q (see hpccgold --help)\n", args[0])
	return ExitUsage
}

// errWriter passes writes to w until one fails, then records that error
// and fails every later write with it, so a command that ignores a write
// error cannot exit 0 with its output lost.
type errWriter struct {
	w        io.Writer
	err      error
	reported bool // the command's own error message named err
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		e.err = fmt.Errorf("write stdout: %w", err)
	}
	return n, e.err
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

// inRange returns an error naming flag --name and its value v unless v is
// in [lo,hi].
func inRange(name string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return fmt.Errorf("--%s=%d: must be in [%d,%d]", name, v, lo, hi)
	}
	return nil
}

// parseList splits the comma-separated value of flag --name; an empty entry
// and an entry listed twice are errors naming the flag and the entry.
func parseList(name, v string) ([]string, error) {
	var out []string
	for _, e := range strings.Split(v, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			return nil, fmt.Errorf("--%s=%q: empty entry", name, v)
		}
		if slices.Contains(out, e) {
			return nil, fmt.Errorf("--%s=%q: %s listed twice", name, v, e)
		}
		out = append(out, e)
	}
	return out, nil
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
