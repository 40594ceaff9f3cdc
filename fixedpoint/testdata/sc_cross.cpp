// sc_cross evaluates fixed-point cases with SystemC's sc_fix/sc_ufix (the
// reference for package fixedpoint's SystemC cross-check test,
// TestSystemCCrossCheck). Built by the test with
//   g++ -O1 -DSC_FXDIV_WL=512 sc_cross.cpp -lsystemc
// SC_FXDIV_WL=512 makes sc_fxval division exact for the quotients tested
// (two operands of at most 64 bits: a non-zero remainder shows up within 64
// bits, so 512 quotient bits decide every rounding); the SystemC default is 64.
// SystemC 2.3.4 quirk: assigning an sc_fxval straight from operator/ to an
// sc_fix loses the rounding carry when it must ripple out of the quotient's
// top mantissa word (e.g. (2^42-1)/1024 into 4 fraction bits under
// SC_RND_ZERO gives 0, not 2^32). Multiplying the quotient by 1 rebuilds its
// representation without changing its value, and the assignment then
// quantizes correctly; see docs/fixedpoint.md.
//
// Input: one case per line on stdin,
//   op q o  wx ix sx bitsx  wy iy sy bitsy  wt it st
// op is cast|neg|add|sub|mul|div; q is 0..6 (SC_TRN, SC_TRN_ZERO, SC_RND,
// SC_RND_ZERO, SC_RND_INF, SC_RND_MIN_INF, SC_RND_CONV); o is 0..3 (SC_WRAP,
// SC_SAT, SC_SAT_ZERO, SC_SAT_SYM); w/i/s give a format (word length,
// integer word length, signed 0/1, as sc_fix(w, i)); bits is the raw W-bit
// pattern in hex. Widths are at most 64.
// Output: one line per case, the W-bit pattern of the result in hex.
#define SC_INCLUDE_FX
#include <systemc.h>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>

using namespace sc_dt;

static const sc_q_mode kQ[] = {SC_TRN, SC_TRN_ZERO, SC_RND, SC_RND_ZERO, SC_RND_INF, SC_RND_MIN_INF, SC_RND_CONV};
static const sc_o_mode kO[] = {SC_WRAP, SC_SAT, SC_SAT_ZERO, SC_SAT_SYM};

// value returns raw * 2^-(w-i) exactly, raw being the W-bit pattern bits
// read as two's complement (s=1) or unsigned (s=0).
static sc_fxval value(int w, int i, int s, uint64_t bits) {
    sc_fxval v;
    if (s && ((bits >> (w - 1)) & 1)) {
        uint64_t ext = w == 64 ? bits : (bits | (~uint64_t(0) << w));
        v = sc_fxval(int64(ext));
    } else {
        v = sc_fxval(uint64(bits));
    }
    int f = w - i;
    if (f > 0) v = v >> f;
    if (f < 0) v = v << -f;
    return v;
}

// rawBits returns the W-bit pattern of r.
static uint64_t rawBits(const sc_fxnum& r, int w) {
    uint64_t b = 0;
    for (int k = w - 1; k >= 0; --k) b = (b << 1) | (r[k] ? 1 : 0);
    return b;
}

template <class T>
static uint64_t eval(const std::string& op, int q, int o, const sc_fxval& a, const sc_fxval& b, int wt, int it) {
    // Operands as sc_fix values of their own formats would give the same
    // sc_fxval results: every operand value is exact in its format.
    T r(wt, it, kQ[q], kO[o]);
    if (op == "cast") r = a;
    else if (op == "neg") r = -a;
    else if (op == "add") r = a + b;
    else if (op == "sub") r = a - b;
    else if (op == "mul") r = a * b;
    else if (op == "div") r = (a / b) * sc_fxval(1);  // see the note on division above
    else { std::cerr << "sc_cross: unknown op " << op << "\n"; std::exit(2); }
    return rawBits(r, wt);
}

int sc_main(int, char*[]) {
    std::string op;
    int q, o, wx, ix, sx, wy, iy, sy, wt, it, st;
    std::string bx, by;
    while (std::cin >> op >> q >> o >> wx >> ix >> sx >> bx >> wy >> iy >> sy >> by >> wt >> it >> st) {
        sc_fxval a = value(wx, ix, sx, std::stoull(bx, nullptr, 16));
        sc_fxval b = value(wy, iy, sy, std::stoull(by, nullptr, 16));
        uint64_t res = st ? eval<sc_fix>(op, q, o, a, b, wt, it) : eval<sc_ufix>(op, q, o, a, b, wt, it);
        std::printf("%llx\n", (unsigned long long)res);
    }
    std::fflush(stdout);
    return 0;
}
