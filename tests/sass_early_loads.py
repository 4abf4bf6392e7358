#!/usr/bin/env python3
"""tests/sass_early_loads.py - checks in the machine code that fp8_v9's scale loads run ahead.

Chapter 05's fp8_v9_scale_loads loads each k-tile's three scales two k-tiles before it issues
the k-tile and multiplies them (FMUL sa * sb) when it adds the k-tile's sum, so that a load has
a k-tile or more of wgmma to arrive in. The PTX always has that order; where the loads land is
ptxas's choice. With read-only loads (__ldg, SASS LDG.E.CONSTANT) it moved every load down to
the k-tile that uses it, the promotion waited for L2 every k-tile, and every test still passed
(05 NOTES.md, fifteenth session). This check reads the SASS of every
wgmma_fp8_v9_scale_loads_kernel instantiation, cuts it into turns at each `WARPGROUP.ARRIVE`
(one per k-tile issued), and fails if an FMUL multiplies two registers that LDGs wrote earlier
in the same turn (sa * sb of loads issued in the k-tile that uses them: moved next to their use;
the epilogue's products of a load of C with beta read one load, not two). It also requires at
least MIN_LOADS loads in the kernel (the scales are loaded at all).

Usage
  tests/sass_early_loads.py OBJECT_OR_PROGRAM   e.g. build/05_mma_ptx/wgmma/hooks_fp8_v9_scale_loads.cu.o
  tests/sass_early_loads.py --self-test         the check on two made-up listings: loads a turn
                                                ahead (passes), loads next to their use (must fail)

Exit 0: no instantiation uses a load in the turn that issued it; 1: one does (its name and the
count are printed); 77: not checked (no cuobjdump on PATH or in $CUDA_PATH/bin, or no sm_90a code
of the kernel in the file: a build without 90 in SM).
"""
import re
import sys

from sass_diff import check_main, parse_sass, self_test_pair  # the same reading of cuobjdump's output

KERNEL = "wgmma_fp8_v9_scale_loads_kernel"
MIN_LOADS = 6  # the unit's first two k-tiles' scales, before the loop, at the least


def registers(operands):
    """the R registers named in an operand list ("R12", "R12.reuse", "[R4.64]": R4 and R5)"""
    regs = []
    for m in re.finditer(r"\bR(\d+)(\.64)?", operands):
        n = int(m.group(1))
        regs += [n, n + 1] if m.group(2) else [n]
    return regs


def same_turn_uses(lines):
    """(LDG count, FMULs of two registers that LDGs wrote earlier in the same turn)"""
    loads, bad, written = 0, [], {}
    for line in lines:
        ins = re.sub(r"^@!?U?P\w+\s+", "", line)  # the guard predicate, if any
        op, _, rest = ins.partition(" ")
        if op.startswith("WARPGROUP.ARRIVE"):
            written = {}  # a new turn
            continue
        dst, _, srcs = rest.partition(",")
        if op.startswith("FMUL"):
            src = registers(srcs)
            if len(src) == 2 and all(written.get(r) == "LDG" for r in src):
                bad.append(line)  # sa * sb of two loads of this turn
        if op.startswith("LDG"):
            loads += 1
        for r in registers(dst) if dst.strip().startswith("R") else []:
            written[r] = "LDG" if op.startswith("LDG") else op
    return loads, bad


def check(text):
    """(exit status, report lines)"""
    kernels = {k: v for k, v in parse_sass(text, "sm_90a").items() if KERNEL in k}
    if not kernels:
        return 77, ["no %s in sm_90a code here (a build without 90 in SM?)" % KERNEL]
    status, report = 0, []
    for name, lines in sorted(kernels.items()):
        loads, bad = same_turn_uses(lines)
        ok = not bad and loads >= MIN_LOADS
        status |= 0 if ok else 1
        report.append("%s %s: %d LDG, %d FMUL reading a load of their own k-tile%s" %
                      ("ok  " if ok else "FAIL", name, loads, len(bad),
                       (" (first: %s)" % bad[0]) if bad else ""))
    return status, report


AHEAD = """
        code for sm_90a
        Function : wgmma_fp8_v9_scale_loads_kernel_made_up
        /*0000*/                   WARPGROUP.ARRIVE ;                      /* 0x0 */
        /*0010*/                   LDG.E R2, desc[UR30][R2.64] ;           /* 0x0 */
        /*0020*/                   LDG.E R6, desc[UR30][R6.64] ;           /* 0x0 */
        /*0030*/                   LDG.E R9, desc[UR30][R8.64] ;           /* 0x0 */
        /*0040*/                   QGMMA.64x128x32.F32.E4M3.E4M3 R88, gdesc[UR20], R88, gsb0 ; /* 0x0 */
        /*0050*/                   WARPGROUP.DEPBAR.LE gsb0, 0x1 ;         /* 0x0 */
        /*0060*/                   FMUL R161, R12, R5 ;                    /* 0x0 */
        /*0070*/                   WARPGROUP.ARRIVE ;                      /* 0x0 */
        /*0080*/                   LDG.E R12, desc[UR30][R12.64] ;         /* 0x0 */
        /*0090*/                   LDG.E R5, desc[UR30][R4.64] ;           /* 0x0 */
        /*00a0*/                   LDG.E R17, desc[UR30][R16.64] ;         /* 0x0 */
        /*00b0*/                   QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR20], R24, gsb0 ; /* 0x0 */
        /*00c0*/                   WARPGROUP.DEPBAR.LE gsb0, 0x1 ;         /* 0x0 */
        /*00d0*/                   FMUL R161, R2, R9 ;                     /* 0x0 */
"""
SUNK = AHEAD.replace("FMUL R161, R2, R9", "FMUL R161, R12, R17")


def self_test():
    return self_test_pair(check, AHEAD, SUNK, ("loads ahead", "loads at their use"),
                          "loads a turn ahead pass, loads used in their own turn fail")


if __name__ == "__main__":
    sys.exit(check_main(sys.argv, __doc__, self_test, check))
