package llvmir

import (
	"fmt"
	"strings"
)

// Driver returns M_check.c: a program that runs a vector set through the
// compiled model.
//
//	M_check STIMULUS EXPECTED   run every stimulus line through the C entry and
//	                            the DPI-C entry, compare both with the expected
//	                            line; print "N passed, M failed" and the first
//	                            mismatches field by field; exit 0 iff M == 0 < N
//	M_check -eval STIMULUS      print the outputs, one expected.hex-style line each
//	M_check -bench N STIMULUS   time N calls of each entry cycling over the
//	                            vectors (inputs unpacked beforehand), in CPU
//	                            time of the thread; print updates per second
//
// The hex files are the vector files' format: one vector per line, the
// packed vector as ceil(bits/4) hex digits, most significant first; empty
// lines and lines starting with // are skipped.
func (md *Model) Driver() []byte {
	var b strings.Builder
	M, U := md.Name, upper(md.Name)
	md.genHeader(&b, "/*", " *", " */", "Vector check and benchmark program of the reference model "+M+" (see "+M+".h).")
	fmt.Fprintf(&b, `#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "%[1]s.h"

#define NI %[2]s_IN_WORDS32
#define NO %[2]s_OUT_WORDS32
#define IN_BITS %[2]s_IN_BITS
#define OUT_BITS %[2]s_OUT_BITS
#define MAX_REPORT 10

`, M, U)
	b.WriteString(cHelpers("hg_"))
	// Output field table, for field-by-field mismatch reports.
	fmt.Fprintf(&b, "\nstatic const struct { const char *name; unsigned off, w; } out_fields[] = {\n")
	for _, p := range md.Outputs {
		fmt.Fprintf(&b, "\t{\"%s\", %d, %d},\n", p.Name, p.Offset, p.Width)
	}
	b.WriteString("};\n")

	// Struct unpack / pack: ins_t holds the input groups, outs_t the output
	// groups.
	b.WriteString("\ntypedef struct {\n")
	for g, grp := range md.Groups {
		if !grp.Output {
			fmt.Fprintf(&b, "\t%s %s;\n", md.structType(g), grp.Param)
		}
	}
	b.WriteString("} ins_t;\n\ntypedef struct {\n")
	for g, grp := range md.Groups {
		if grp.Output {
			fmt.Fprintf(&b, "\t%s %s;\n", md.structType(g), grp.Param)
		}
	}
	b.WriteString("} outs_t;\n\nstatic void unpack_in(const uint32_t *v, ins_t *a)\n{\n")
	for _, p := range md.Inputs {
		dst := fmt.Sprintf("a->%s.%s", md.Groups[p.Group].Param, p.Field)
		if p.Slots() > 1 {
			for k := 0; k < p.Slots(); k++ {
				off, w := chunk(p, k)
				fmt.Fprintf(&b, "\t%s[%d] = hg_get(v, %d, %d);\n", dst, k, off, w)
			}
			continue
		}
		t, _ := cType(p)
		if p.Signed {
			fmt.Fprintf(&b, "\t%s = (%s)((int64_t)(hg_get(v, %d, %d) << %d) >> %d);\n", dst, t, p.Offset, p.Width, 64-p.Width, 64-p.Width)
		} else {
			fmt.Fprintf(&b, "\t%s = (%s)hg_get(v, %d, %d);\n", dst, t, p.Offset, p.Width)
		}
	}
	b.WriteString("}\n\nstatic void pack_out(const outs_t *a, uint32_t *v)\n{\n\tunsigned i;\n\tfor (i = 0; i < NO; i++)\n\t\tv[i] = 0;\n")
	for _, p := range md.Outputs {
		src := fmt.Sprintf("a->%s.%s", md.Groups[p.Group].Param, p.Field)
		if p.Slots() > 1 {
			for k := 0; k < p.Slots(); k++ {
				off, w := chunk(p, k)
				fmt.Fprintf(&b, "\thg_put(v, %d, %d, %s[%d]);\n", off, w, src, k)
			}
			continue
		}
		fmt.Fprintf(&b, "\thg_put(v, %d, %d, (uint64_t)%s);\n", p.Offset, p.Width, src)
	}
	b.WriteString("}\n\n")
	// call lists the entry's arguments given inputs i (ins_t *) and
	// outputs o (outs_t *).
	var call, ptypes []string
	for g, grp := range md.Groups {
		if grp.Output {
			call = append(call, "&o->"+grp.Param)
			ptypes = append(ptypes, md.structType(g)+" *")
		} else {
			call = append(call, "&i->"+grp.Param)
			ptypes = append(ptypes, "const "+md.structType(g)+" *")
		}
	}
	fmt.Fprintf(&b, "/* Runs one vector through the C entry (c) and the DPI-C entry (d). */\nstatic void run_one(const uint32_t *in, ins_t *i, outs_t *o, uint32_t *c, uint32_t *d)\n{\n\tunpack_in(in, i);\n\t%s(%s);\n\tpack_out(o, c);\n\t%s_dpi(in, d);\n}\n", M, strings.Join(call, ", "), M)
	// The benchmark calls the entries through volatile function pointers
	// so that no build (link-time optimization included) can inline them
	// into the timing loop and drop the outputs it does not read.
	first := md.Outputs[0]
	sink := fmt.Sprintf("o->%s.%s", md.Groups[first.Group].Param, first.Field)
	if first.Slots() > 1 {
		sink += "[0]"
	}
	fmt.Fprintf(&b, "\nstatic void (*volatile bench_c)(%s) = %s;\n", strings.Join(ptypes, ", "), M)
	fmt.Fprintf(&b, "static void (*volatile bench_dpi)(const uint32_t *, uint32_t *) = %s_dpi;\n", M)
	macro := strings.NewReplacer("&i->", "&(i)->", "&o->", "&(o)->", "o->", "(o)->")
	fmt.Fprintf(&b, "#define BENCH_CALL(i, o) bench_c(%s)\n#define BENCH_SINK(o) ((uint64_t)%s)\n#define DPI_CALL bench_dpi\n",
		macro.Replace(strings.Join(call, ", ")), macro.Replace(sink))
	b.WriteString(driverBody)
	return []byte(b.String())
}

// driverBody is the model-independent part of the check program.
const driverBody = `
/* Parses one line of exactly ceil(bits/4) hex digits (surrounding blanks
 * allowed) into v; returns 0, or -1 on a malformed line or bits set above
 * the width. */
static int parse_hex(const char *s, uint32_t *v, unsigned words, unsigned bits)
{
	unsigned digits = (bits + 3) / 4, n = 0, i;
	const char *p, *e;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s;
	while ((*e >= '0' && *e <= '9') || (*e >= 'a' && *e <= 'f') || (*e >= 'A' && *e <= 'F'))
		e++;
	for (p = e; *p; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			return -1;
	if ((unsigned)(e - s) != digits)
		return -1;
	for (i = 0; i < words; i++)
		v[i] = 0;
	for (p = e - 1; p >= s; p--, n++) {
		unsigned c = (unsigned)*p, x;
		x = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
		v[n / 8] |= (uint32_t)x << (4 * (n % 8));
	}
	if (bits % 32 && (v[words - 1] >> (bits % 32)) != 0)
		return -1;
	return 0;
}

static void print_hex(FILE *f, const uint32_t *v, unsigned bits)
{
	int d;
	for (d = (int)((bits + 3) / 4) - 1; d >= 0; d--)
		fputc("0123456789abcdef"[(v[d / 8] >> (4 * (d % 8))) & 15], f);
}

/* Reads every vector line of path; returns the packed vectors, count in *n. */
static uint32_t *read_hex(const char *path, unsigned words, unsigned bits, size_t *n)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1024, len = 0, lineno = 0;
	uint32_t *v;
	char *line;
	size_t linecap = (bits + 3) / 4 + 64;
	if (!f) {
		fprintf(stderr, "%s: cannot open\n", path);
		exit(2);
	}
	v = malloc(cap * words * sizeof *v);
	line = malloc(linecap);
	if (!v || !line) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	while (fgets(line, (int)linecap, f)) {
		const char *s = line;
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			fprintf(stderr, "%s line %zu: too long\n", path, lineno);
			exit(2);
		}
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\n' || *s == '\r' || *s == 0 || (s[0] == '/' && s[1] == '/'))
			continue;
		if (len == cap) {
			cap *= 2;
			v = realloc(v, cap * words * sizeof *v);
			if (!v) {
				fprintf(stderr, "out of memory\n");
				exit(2);
			}
		}
		if (parse_hex(s, v + len * words, words, bits) != 0) {
			fprintf(stderr, "%s line %zu: want %u hex digits of a %u-bit vector\n", path, lineno, (bits + 3) / 4, bits);
			exit(2);
		}
		len++;
	}
	fclose(f);
	free(line);
	*n = len;
	return v;
}

static void print_field(FILE *f, const uint32_t *v, unsigned off, unsigned w)
{
	uint32_t tmp[(OUT_BITS + 31) / 32];
	unsigned i;
	for (i = 0; i < (w + 31) / 32; i++)
		tmp[i] = (uint32_t)hg_get(v, off + 32 * i, w - 32 * i < 32 ? w - 32 * i : 32);
	fputs("0x", f);
	print_hex(f, tmp, w);
}

static int check(const char *stim, const char *exp)
{
	size_t ni, ne, i, pass = 0, fail = 0;
	uint32_t *in = read_hex(stim, NI, IN_BITS, &ni);
	uint32_t *want = read_hex(exp, NO, OUT_BITS, &ne);
	uint32_t c[NO], d[NO];
	ins_t a;
	outs_t o;
	if (ni != ne) {
		fprintf(stderr, "%s has %zu vectors, %s has %zu\n", stim, ni, exp, ne);
		return 2;
	}
	for (i = 0; i < ni; i++) {
		const uint32_t *w = want + i * NO;
		int bad = 0;
		unsigned k;
		run_one(in + i * NI, &a, &o, c, d);
		for (k = 0; k < sizeof out_fields / sizeof out_fields[0]; k++) {
			unsigned off = out_fields[k].off, fw = out_fields[k].w, j;
			for (j = 0; j < fw; j += 64) {
				unsigned cw = fw - j < 64 ? fw - j : 64;
				uint64_t g = hg_get(c, off + j, cw), x = hg_get(w, off + j, cw), y = hg_get(d, off + j, cw);
				if (g == x && y == x)
					continue;
				if (fail < MAX_REPORT) {
					printf("vector %zu: %s: C entry ", i, out_fields[k].name);
					print_field(stdout, c, off, fw);
					printf(", DPI-C entry ");
					print_field(stdout, d, off, fw);
					printf(", want ");
					print_field(stdout, w, off, fw);
					printf("\n");
				}
				bad = 1;
				break;
			}
		}
		if (bad)
			fail++;
		else
			pass++;
	}
	printf("%zu passed, %zu failed\n", pass, fail);
	free(in);
	free(want);
	return fail == 0 && pass > 0 ? 0 : 1;
}

static int eval(const char *stim)
{
	size_t n, i;
	uint32_t *in = read_hex(stim, NI, IN_BITS, &n);
	uint32_t c[NO], d[NO];
	ins_t a;
	outs_t o;
	for (i = 0; i < n; i++) {
		run_one(in + i * NI, &a, &o, c, d);
		if (memcmp(c, d, sizeof c) != 0) {
			fprintf(stderr, "vector %zu: the C and DPI-C entries disagree\n", i);
			return 1;
		}
		print_hex(stdout, c, OUT_BITS);
		putchar('\n');
	}
	free(in);
	return 0;
}

/* CPU time of the calling thread, seconds: other processes' load on a
 * shared machine does not count (wall time would). */
static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int bench(unsigned long long iters, const char *stim)
{
	size_t n, i, k;
	uint32_t *in = read_hex(stim, NI, IN_BITS, &n);
	ins_t *args;
	outs_t o;
	uint32_t out[NO];
	uint64_t sink = 0;
	unsigned long long it;
	double t0, t1;
	if (n == 0) {
		fprintf(stderr, "%s: no vectors\n", stim);
		return 2;
	}
	args = malloc(n * sizeof *args);
	if (!args) {
		fprintf(stderr, "out of memory\n");
		return 2;
	}
	for (i = 0; i < n; i++)
		unpack_in(in + i * NI, &args[i]);
	memset(&o, 0, sizeof o);
	t0 = now_s();
	for (it = 0, k = 0; it < iters; it++) {
		BENCH_CALL(&args[k], &o);
		sink += BENCH_SINK(&o);
		if (++k == n)
			k = 0;
	}
	t1 = now_s();
	printf("entry=c updates=%llu seconds=%.6f updates_per_s=%.0f\n", iters, t1 - t0, (double)iters / (t1 - t0));
	t0 = now_s();
	for (it = 0, k = 0; it < iters; it++) {
		DPI_CALL(in + k * NI, out);
		sink += out[0];
		if (++k == n)
			k = 0;
	}
	t1 = now_s();
	printf("entry=dpi updates=%llu seconds=%.6f updates_per_s=%.0f\n", iters, t1 - t0, (double)iters / (t1 - t0));
	fprintf(stderr, "sink %llu\n", (unsigned long long)sink);
	free(args);
	free(in);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && argv[1][0] != '-')
		return check(argv[1], argv[2]);
	if (argc == 3 && strcmp(argv[1], "-eval") == 0)
		return eval(argv[2]);
	if (argc == 4 && strcmp(argv[1], "-bench") == 0)
		return bench(strtoull(argv[2], NULL, 10), argv[3]);
	fprintf(stderr, "usage: %s STIMULUS EXPECTED | -eval STIMULUS | -bench N STIMULUS\n", argv[0]);
	return 2;
}
`
