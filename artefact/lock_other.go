//go:build !unix

package artefact

import "errors"

type lock struct{}

func acquire(string) (*lock, error) {
	return nil, errors.New("artefact: directory locks need flock(2), available on Unix systems only")
}

func (l *lock) release() error { return nil }
