// Package cli implements the hpccgold command line: a thin layer that parses
// flags, calls the library packages, and prints. Each subcommand lives in its
// own file and is registered in commands.go. cmd/hpccgold hands os.Args to
// Main.
//
// Exit codes: 0 success, 1 the command ran and found a failure (a vector
// mismatch, a failed co-simulation), 2 bad usage or bad input.
package cli
