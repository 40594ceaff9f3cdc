// Package atomicfile writes files atomically: the content goes to a
// temporary file in the destination directory, is synced, and is renamed
// over the destination only when complete. An interrupted or failed write
// never leaves a file at the destination that looks complete.
package atomicfile
