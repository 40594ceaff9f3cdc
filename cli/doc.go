// Package cli implements the hpccgold command line: a thin layer that parses
// flags, calls the library packages, and prints. Each subcommand lives in its
// own file and is registered in commands.go. cmd/hpccgold hands os.Args to
// Main.
//
// Exit codes: 0 success, 1 the command ran and found a failure (a vector
// mismatch, a failed co-simulation, a run whose flows did not complete), 2
// bad usage, bad input or an output that could not be written (stdout is
// checked). A command never exits 0 on a wrong, empty or partial answer.
// Every command runs under a context cancelled by SIGINT and SIGTERM
// (Env.Ctx). docs/cli.md has the rules.
package cli
