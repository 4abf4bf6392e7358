#!/usr/bin/env python3
"""tests/sass_overlap.py - checks in the machine code that v4_overlap's softmax overlaps its P V.

Chapter 10's v4_overlap issues, in one turn, S of tile j and P V of tile j - 1, waits for S only
(wgmma.wait_group 1), runs the softmax of tile j, and only then waits for P V (wait_group 0). The
PTX always has that order; whether the GPU sees it is ptxas's choice: its scheduler moves a
wgmma wait to the top of its basic block, and the first version of the rung compiled to a wait
for P V *before* the softmax, so nothing overlapped and every test still passed (NOTES.md, "The
wait ptxas moved"). This check reads the SASS of every attn_v4_overlap_kernel instantiation and
requires, in at least one stretch from a `WARPGROUP.DEPBAR.LE gsb0, 0x1` to the next
`WARPGROUP.DEPBAR.LE gsb0, 0x0`, at least MIN_EX2 (64) `MUFU.EX2`: the exponentials of a tile's
128 x 128 scores per warpgroup, 64 per thread, between the two waits.

Usage
  tests/sass_overlap.py OBJECT_OR_PROGRAM   e.g. build/10_flash_attention/attn_hooks.cu.o
  tests/sass_overlap.py --self-test         the check on two made-up listings: one overlapped
                                            (passes), one with the wait hoisted (must fail)

Exit 0: every instantiation overlaps; 1: one does not (its name and the counts are printed);
77: not checked (no cuobjdump on PATH or in $CUDA_PATH/bin, or no sm_90a code in the file: a
build without 90 in SM).
"""
import os
import subprocess
import sys

from sass_diff import find_cuobjdump, made_up_listing, parse_sass  # the same reading of cuobjdump's output

MIN_EX2 = 64
KERNEL = "attn_v4_overlap_kernel"


def ex2_between_waits(lines):
    """the MUFU.EX2 count of each stretch from DEPBAR.LE gsb0, 0x1 to the next DEPBAR.LE gsb0, 0x0"""
    counts, inside, n = [], False, 0
    for line in lines:
        if "WARPGROUP.DEPBAR.LE gsb0, 0x1" in line:
            inside, n = True, 0
        elif "WARPGROUP.DEPBAR.LE gsb0, 0x0" in line and inside:
            counts.append(n)
            inside = False
        elif inside and "MUFU.EX2" in line:
            n += 1
    return counts


def check(text):
    """(exit status, report lines)"""
    kernels = {k: v for k, v in parse_sass(text, None).items() if KERNEL in k}
    if not kernels:
        return 77, ["no %s in sm_90a code here (a build without 90 in SM?)" % KERNEL]
    status, report = 0, []
    for name, lines in sorted(kernels.items()):
        counts = ex2_between_waits(lines)
        best = max(counts, default=0)
        ok = best >= MIN_EX2
        status |= 0 if ok else 1
        report.append("%s %s: %d MUFU.EX2 between the waits (of %s stretches: %s)" %
                      ("ok  " if ok else "FAIL", name, best, len(counts),
                       ", ".join(map(str, counts)) or "none"))
    return status, report


def listing(hoisted):
    """a made-up listing of one turn: two waits, 66 exponentials, before or after the second"""
    body = ["HGMMA.64x128x16.F32 R24, gdesc[UR8], R24, gsb0", "WARPGROUP.DEPBAR.LE gsb0, 0x1"]
    ex2 = ["MUFU.EX2 R%d, R%d" % (i, i) for i in range(24, 90)]
    wait0 = ["WARPGROUP.DEPBAR.LE gsb0, 0x0"]
    body += (wait0 + ex2) if hoisted else (ex2 + wait0)
    return made_up_listing("_Z22%sI6__halfLi128EEvv" % KERNEL, body, "sm_90a")


def main():
    if sys.argv[1:] == ["--self-test"]:
        good, _ = check(listing(hoisted=False))
        bad, _ = check(listing(hoisted=True))
        if good == 0 and bad == 1:
            print("the check passes an overlapped turn and fails a hoisted wait")
            return 0
        print("self-test FAILED: overlapped -> %d, hoisted -> %d (want 0 and 1)" % (good, bad))
        return 1
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    tool = find_cuobjdump()
    if not tool:
        print("not checked: cuobjdump is not on PATH or in $CUDA_PATH/bin")
        return 77
    if not os.path.exists(sys.argv[1]):
        print("not checked: %s is not built" % sys.argv[1])
        return 77
    run = subprocess.run([tool, "-sass", "-arch", "sm_90a", sys.argv[1]], capture_output=True,
                         text=True)
    status, report = check(run.stdout)
    print("\n".join(report))
    return status


if __name__ == "__main__":
    sys.exit(main())
