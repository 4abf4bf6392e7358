#!/usr/bin/env python3
"""tests/sass_inside_path.py - checks in the machine code that rungs g and h skip the rim's tests inside.

Chapter 06's rung h (stencil_stmatrix_pipe_kernel) chooses per tile between rung g's stmatrix
write-back, for a tile wholly inside the grid, and the per-cell write-back that tests every cell
against the grid's rim. Its first build made the choice inside the step loop; ptxas hoisted the
rim's per-cell tests (loop-invariant) out of the loop, above the choice, and every tile computed
them: about 330 instructions per warp and tile at r = 3, 36% more instructions per pass than rung
g on an H100, and every test still passed (06 NOTES.md, "Rung h measured"). The kernel now runs
the steps in one of two instantiations chosen per tile. Rung g (stencil_stmatrix_kernel, one
tile per block) makes the choice inside its step loop and ptxas kept the tests on the rim's path
there; rung e's sparse r = 3 kernel, written the same way, was not so lucky. This check reads the
SASS of every instantiation of both kernels, finds the barrier that ends the tile's wait (the
first BAR.SYNC after the first `DEPBAR.LE SB0`) and the head of the step loop that writes back
with STSM (the innermost loop whose body holds an STSM: a backward BRA), and counts the predicate
work between them (ISETP, LOP3, P2R, PLOP3). More than MAX_PREDICATE fails: the rim's tests are back on the inside
path. The count depends on ptxas's layout; if it ever places the rim path between the two, this
check fails too and the SASS must be read.

Usage
  tests/sass_inside_path.py OBJECT_OR_PROGRAM   e.g. build/bin/06_sparse_stencil
  tests/sass_inside_path.py --self-test         the check on two made-up listings: a short set-up
                                                (passes), the rim's tests hoisted (must fail)

Exit 0: every instantiation's inside path is short; 1: one is not (its name and count printed);
77: not checked (no cuobjdump on PATH or in $CUDA_PATH/bin, or no sm_90 code of the kernel).
"""
import re
import sys

from sass_diff import check_main, made_up_listing, parse_sass, self_test_pair  # the same reading of cuobjdump's output

# rung h, and rung g (one tile per block; ptxas kept its tests on the rim path, a choice worth
# guarding: the same choice in one loop made rung e's sparse r = 3 kernel compute them everywhere)
KERNELS = ("stencil_stmatrix_pipe_kernel", "stencil_stmatrix_kernel")
# CUDA 13.0, sm_90: rung h 19-27 in its eight instantiations (120-291 in its first build), rung g 7-24
MAX_PREDICATE = 60
PREDICATE_OPS = ("ISETP", "LOP3", "P2R", "PLOP3")


def opcode(line):
    return re.sub(r"^@!?U?P\w+\s+", "", line).split(" ")[0]


def inside_prelude(lines):
    """(predicate instructions between the tile wait's barrier and the stmatrix step loop's head,
    or None with the reason when either is missing)"""
    waits = [i for i, x in enumerate(lines) if x.startswith("DEPBAR.LE SB0")]
    if not waits:
        return None, "no DEPBAR.LE SB0 (the wait for the tile)"
    barrier = next((i for i in range(waits[0], len(lines)) if "BAR.SYNC" in lines[i]), None)
    if barrier is None:
        return None, "no BAR.SYNC after the tile's wait"
    head = None
    for i, x in enumerate(lines):
        m = re.search(r"\bBRA\s+(?:`\()?(?:0x)?([0-9a-f]+)", re.sub(r"^@!?U?P\w+\s+", "", x))
        if not m or not opcode(x).startswith("BRA"):
            continue
        target = int(m.group(1), 16) // 16  # sm_90: 16 bytes an instruction
        if target < i and any(opcode(y).startswith("STSM") for y in lines[target:i]):
            head = target if head is None else max(head, target)  # the innermost: the tile
            # loop holds an STSM too
    if head is None:
        return None, "no loop with an STSM (the inside tile's step loop)"
    if head < barrier:
        return None, "the stmatrix step loop starts before the tile's wait"
    return sum(1 for x in lines[barrier:head] if opcode(x).split(".")[0] in PREDICATE_OPS), ""


def check(text):
    """(exit status, report lines)"""
    kernels = {k: v for k, v in parse_sass(text, "sm_90").items()
               if any(name + "<" in k for name in KERNELS)}
    if not kernels:
        return 77, ["no %s in sm_90 code here (a build without 90 in SM?)" % " or ".join(KERNELS)]
    status, report = 0, []
    for name, lines in sorted(kernels.items()):
        count, why = inside_prelude(lines)
        ok = count is not None and count <= MAX_PREDICATE
        status |= 0 if ok else 1
        report.append("%s %s: %s" % ("ok  " if ok else "FAIL", name,
                                     why if count is None else
                                     "%d predicate instructions before the inside step loop "
                                     "(at most %d)" % (count, MAX_PREDICATE)))
    return status, report


def listing(prelude):
    """a made-up kernel: the tile's wait, PRELUDE predicate instructions, a step loop with STSM"""
    body = ["DEPBAR.LE SB0, 0x1", "BAR.SYNC.DEFER_BLOCKING 0x0"]
    body += ["ISETP.GE.AND P0, PT, R%d, R3, PT" % (4 + i % 40) for i in range(prelude)]
    head = len(body)
    body += ["LDSM.16.M88.4 R44, [R6]", "HMMA.SP.16832.F16 R8, R44, R12, R8, R2, 0x0",
             "BAR.SYNC.DEFER_BLOCKING 0x0", "STSM.16.MT88.4 [R48], R36",
             "BAR.SYNC.DEFER_BLOCKING 0x0", "@!P6 BRA 0x%x" % (16 * head), "EXIT"]
    return made_up_listing("%s<made_up>" % KERNELS[0], body)


def self_test():
    return self_test_pair(check, listing(20), listing(300), ("a short set-up", "hoisted tests"),
                          "a short set-up passes, the rim's tests on the inside path fail")


if __name__ == "__main__":
    sys.exit(check_main(sys.argv, __doc__, self_test, check))
