package network

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// CDF is an empirical flow-size distribution: points (size bytes,
// cumulative probability) with sizes and probabilities non-decreasing and
// the last probability exactly 1. Sizes between points are drawn by linear
// interpolation of the inverse CDF (as the HPCC authors' traffic
// generator, traffic_gen.py CustomRand, does); a first point with
// probability p0 > 0 is a point mass p0 at its size.
type CDF struct {
	Name  string
	Size  []float64 // bytes
	Prob  []float64 // cumulative, in [0,1]
	meanB float64
	maxB  float64
}

//go:embed testdata/websearch.cdf testdata/hadoop.cdf
var builtinCDFs embed.FS

// BuiltinCDFs lists the names LoadCDF accepts instead of a file path.
func BuiltinCDFs() []string { return []string{"websearch", "hadoop"} }

// LoadCDF reads a CDF from a built-in name ("websearch": the web-search
// workload of DCTCP, SIGCOMM 2010, Figure 3; "hadoop": the Hadoop cluster
// of Roy et al., "Inside the Social Network's (Datacenter) Network",
// SIGCOMM 2015; both as tabulated in the HPCC authors' traffic generator)
// or from a file.
func LoadCDF(nameOrPath string) (*CDF, error) {
	for _, b := range BuiltinCDFs() {
		if nameOrPath == b {
			data, err := builtinCDFs.ReadFile("testdata/" + b + ".cdf")
			if err != nil {
				return nil, fmt.Errorf("network: cdf %q: %w", b, err)
			}
			return ParseCDF(b, bytes.NewReader(data))
		}
	}
	f, err := os.Open(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("network: cdf: %w (built-in names: %s)", err, strings.Join(BuiltinCDFs(), ", "))
	}
	defer f.Close()
	return ParseCDF(nameOrPath, f)
}

// ParseCDF reads a CDF: one point per line, "size probability" separated
// by spaces, tabs or a comma; size in bytes (a non-negative number),
// probability in [0,1]; blank lines and lines starting with '#' are
// ignored. Errors name the line, the field and its value: a value that is
// not a number, out of range, a size or probability smaller than the
// previous line's (not monotonic), fewer than one point with size > 0, or
// a last probability other than 1.
func ParseCDF(name string, r io.Reader) (*CDF, error) {
	c := &CDF{Name: name}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		f := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' })
		if len(f) != 2 {
			return nil, fmt.Errorf("network: cdf %s: line %d: %q: want \"size probability\"", name, line, t)
		}
		s, err := strconv.ParseFloat(f[0], 64)
		if err != nil || math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
			return nil, fmt.Errorf("network: cdf %s: line %d: size=%q: must be a finite number >= 0", name, line, f[0])
		}
		p, err := strconv.ParseFloat(f[1], 64)
		if err != nil || math.IsNaN(p) || p < 0 || p > 1 {
			return nil, fmt.Errorf("network: cdf %s: line %d: probability=%q: must be a number in [0,1]", name, line, f[1])
		}
		if n := len(c.Size); n > 0 {
			if s < c.Size[n-1] {
				return nil, fmt.Errorf("network: cdf %s: line %d: size=%v: less than the previous size %v (not monotonic)", name, line, s, c.Size[n-1])
			}
			if p < c.Prob[n-1] {
				return nil, fmt.Errorf("network: cdf %s: line %d: probability=%v: less than the previous probability %v (not monotonic)", name, line, p, c.Prob[n-1])
			}
		}
		c.Size = append(c.Size, s)
		c.Prob = append(c.Prob, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("network: cdf %s: %w", name, err)
	}
	n := len(c.Size)
	if n == 0 {
		return nil, fmt.Errorf("network: cdf %s: no points", name)
	}
	if c.Prob[n-1] != 1 {
		return nil, fmt.Errorf("network: cdf %s: last probability=%v: must be 1", name, c.Prob[n-1])
	}
	if c.Size[n-1] < 1 {
		return nil, fmt.Errorf("network: cdf %s: largest size=%v: must be at least 1 byte", name, c.Size[n-1])
	}
	// Mean of the piecewise-linear CDF: a point mass Prob[0] at Size[0],
	// then uniform mass on each segment.
	m := c.Prob[0] * c.Size[0]
	for i := 1; i < n; i++ {
		m += (c.Prob[i] - c.Prob[i-1]) * (c.Size[i] + c.Size[i-1]) / 2
	}
	c.meanB, c.maxB = m, c.Size[n-1]
	return c, nil
}

// Mean returns the mean flow size in bytes (before rounding to whole
// bytes).
func (c *CDF) Mean() float64 { return c.meanB }

// Quantile returns the size at cumulative probability u in [0,1] (the
// inverse CDF, linear between points).
func (c *CDF) Quantile(u float64) float64 {
	if u <= c.Prob[0] {
		return c.Size[0]
	}
	for i := 1; i < len(c.Prob); i++ {
		if u <= c.Prob[i] {
			lo, hi := c.Prob[i-1], c.Prob[i]
			if hi == lo {
				return c.Size[i]
			}
			return c.Size[i-1] + (u-lo)/(hi-lo)*(c.Size[i]-c.Size[i-1])
		}
	}
	return c.maxB
}

// Bytes draws a flow size in whole bytes (rounded to nearest, at least 1)
// from a uniform u in [0,1).
func (c *CDF) Bytes(u float64) uint64 {
	return max(1, uint64(math.Round(c.Quantile(u))))
}
