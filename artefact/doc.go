// Package artefact owns hpccgold's output directories. Every command that
// writes a directory of results (vector sets, scenario runs, the demo,
// emitted RTL and LLVM IR, co-simulation work directories) writes it through
// one Writer, which gives each directory five rules:
//
//  1. One writer at a time. Create takes an exclusive lock (flock(2)) on
//     DIR/.hpccgold.lock; a second writer fails at once with an error
//     wrapping ErrBusy that names the holder (pid, command, start time). The
//     kernel drops the lock when its process dies, even by SIGKILL.
//  2. Only hpccgold's directories. A directory that already holds files is
//     taken only if an earlier hpccgold run wrote it (it holds the lock file,
//     or a manifest.json whose "tool" is hpccgold's); anything else is
//     refused with ErrNotOwned, so `--out .` cannot empty a source tree.
//  3. Staged, manifest last. Files are written into a hidden staging
//     directory inside DIR. Commit removes the old manifest first (so
//     nothing vouches for a half-replaced set), moves the earlier run's
//     files aside, moves the new files into place, writes the manifest last
//     and only then deletes the earlier files. Files of the earlier run that
//     the new set does not hold are therefore gone after a commit.
//  4. Nothing half-written survives. Close without Commit (an error, a
//     cancelled context after SIGINT or SIGTERM) removes the staging
//     directory and leaves the earlier run untouched; a run killed outright
//     leaves hidden leftovers only (never a manifest that vouches for them),
//     and the next Create removes them.
//  5. Verifiable. Every committed directory has a manifest.json listing each
//     file with its size and SHA-256; Verify re-hashes them and reports
//     files the manifest does not list.
//
// Kinds with a manifest of their own (vector sets, scenario runs) hand it to
// CommitManifest, and it must list every file of the directory in its
// "files" array with "name", "bytes" and "sha256" (extra keys are allowed);
// other kinds use Commit, which hashes the staged tree and writes the
// generic Manifest.
package artefact
