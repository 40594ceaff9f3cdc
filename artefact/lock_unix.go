//go:build unix

package artefact

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lock is an exclusive flock(2) on a lock file. The kernel releases it when
// the file is closed or the process dies, so a killed writer never leaves a
// stale lock.
type lock struct{ f *os.File }

// acquire takes the lock on path without waiting. When another process holds
// it, the error wraps ErrBusy and names the holder as the lock file records
// it.
func acquire(path string) (*lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s)", ErrBusy, describeHolder(string(holder)))
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	rec := fmt.Sprintf("pid %d\ncommand %s\nsince %s\n", os.Getpid(), strings.Join(os.Args, " "),
		time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(rec), 0)
	}
	return &lock{f: f}, nil
}

// describeHolder turns a lock file's record into "pid N, `command`, since T".
func describeHolder(rec string) string {
	var pid, cmd, since string
	for _, l := range strings.Split(rec, "\n") {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "pid":
			pid = v
		case "command":
			cmd = v
		case "since":
			since = v
		}
	}
	if _, err := strconv.Atoi(pid); err != nil {
		return "holder unknown"
	}
	return fmt.Sprintf("held by pid %s, `%s`, since %s", pid, cmd, since)
}

func (l *lock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing drops the flock
	l.f = nil
	return err
}
