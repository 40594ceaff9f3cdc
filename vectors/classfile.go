package vectors

import (
	"fmt"
	"strconv"
)

// ClassesFile is classes.txt: the class ranges of a set's directory, read
// by the emitted testbench so that a failing vector is named with its
// class. One line per class with vectors in the directory, in vector
// order: "FIRST COUNT NAME", FIRST the index of the class's first vector
// counted from the directory's first vector (decimal), COUNT its vectors
// in the directory, NAME the class name.
const ClassesFile = "classes.txt"

// MaxClassNameLen bounds a class name in classes.txt: the testbench holds
// each name in a 128-character register.
const MaxClassNameLen = 128

// classRanges renders classes.txt for man: the part of each class's range
// [First, First+Total) that falls in the directory's vectors
// [Shard.First, Shard.First+Count), relative to Shard.First.
func classRanges(man *Manifest) ([]byte, error) {
	var b []byte
	lo, hi := man.Shard.First, man.Shard.First+man.Count
	for _, c := range man.Classes {
		first, last := max(c.First, lo), min(c.First+c.Total, hi)
		if last <= first {
			continue
		}
		if len(c.Name) > MaxClassNameLen {
			return nil, fmt.Errorf("vectors: class %q: name longer than %d characters (%s)", c.Name, MaxClassNameLen, ClassesFile)
		}
		b = strconv.AppendInt(b, first-lo, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, last-first, 10)
		b = append(b, ' ')
		b = append(append(b, c.Name...), '\n')
	}
	return b, nil
}

// writeClasses writes classes.txt for man into dir and returns its hash.
func writeClasses(dir string, man *Manifest) (FileHash, error) {
	data, err := classRanges(man)
	if err != nil {
		return FileHash{}, err
	}
	fh, err := writeSmall(dir, ClassesFile, data)
	if err != nil {
		return FileHash{}, fmt.Errorf("vectors: %w", err)
	}
	return fh, nil
}
