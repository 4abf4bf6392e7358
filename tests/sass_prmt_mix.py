#!/usr/bin/env python3
"""tests/sass_prmt_mix.py - checks in the machine code that chapter 06's rate probe issues its mix.

probe_rate<SPARSE, CHAINS, MIX> (06_sparse_stencil/stencil_probe.cu) issues MIX prmt.b32 after
each mma, so that --bench can say how far ALU work between the mmas lowers their rate. Its sums
do not depend on the prmt (they work on registers of their own), so --test cannot see them
vanish: if ptxas removed them as dead, or folded two into one, the "k = 1" and "k = 2" rates
would silently measure the plain probe. This check reads the SASS of every instantiation and
requires exactly MIX PRMT per HMMA (CUDA 13.0, sm_80 and sm_90: 40 HMMA and 0, 40 or 80 PRMT
at 8 chains), and at least one instantiation with MIX > 0.

Usage
  tests/sass_prmt_mix.py OBJECT_OR_PROGRAM   e.g. build/06_sparse_stencil/stencil_probe.cu.o
  tests/sass_prmt_mix.py --self-test         the check on two made-up listings: the mix issued
                                             (passes), the prmt gone (must fail)

Exit 0: every instantiation issues its mix; 1: one does not (its name and counts printed);
77: not checked (no cuobjdump on PATH or in $CUDA_PATH/bin, or no probe_rate in the code).
"""
import re
import sys

from sass_diff import check_main, made_up_listing, parse_sass, self_test_pair  # the same reading of cuobjdump's output

# demangled, or as cuobjdump prints it where no c++filt is found
NAME = re.compile(r"probe_rate(?:<(?:true|false), (\d+), (\d+)>|ILb[01]ELi(\d+)ELi(\d+)E)")


def check(text):
    """(exit status, report lines)"""
    status, report, mixed = 0, [], 0
    for name, lines in sorted(parse_sass(text, None).items()):
        m = NAME.search(name)
        if not m:
            continue
        mix = int(m.group(2) or m.group(4))
        mixed += mix > 0
        hmma = sum(1 for x in lines if "HMMA" in x)
        prmt = sum(1 for x in lines if re.search(r"\bPRMT\b", x))
        ok = hmma > 0 and prmt == mix * hmma
        status |= 0 if ok else 1
        report.append("%s %s: %d PRMT, %d HMMA (want %d PRMT)" %
                      ("ok  " if ok else "FAIL", name, prmt, hmma, mix * hmma))
    if not report:
        return 77, ["no probe_rate in this code"]
    if not mixed:
        return 1, report + ["FAIL no probe_rate with MIX > 0: the mix is not built"]
    return status, report


def listing(prmt_per_hmma):
    """a made-up probe_rate<true, 8, 1>: 40 HMMA.SP, each followed by PRMT_PER_HMMA PRMT"""
    body = []
    for i in range(40):
        acc, own, other = 16 + 4 * (i % 8), 44 + i % 8, 44 + (i + 1) % 8
        body.append("HMMA.SP.16832.F32 R%d, R4, R8, R%d, R52, 0x0" % (acc, acc))
        body += ["PRMT R%d, R%d, 0x6521, R%d" % (own, own, other)] * prmt_per_hmma
    body.append("EXIT")
    return made_up_listing("_Z10probe_rateILb1ELi8ELi1EEvPKjPKfiPf", body)


def self_test():
    return self_test_pair(check, listing(1), listing(0), ("the mix issued", "the prmt gone"),
                          "the mix issued passes, a probe without its prmt fails")


if __name__ == "__main__":
    sys.exit(check_main(sys.argv, __doc__, self_test, check))
