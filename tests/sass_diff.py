#!/usr/bin/env python3
"""tests/sass_diff.py - compares the machine code (SASS) of kernels in two builds.

A refactor that must not change the GPU code (CONTRIBUTING.md, "Refactors that must not change
the GPU code") shows it here: each kernel of the new build is paired with one of the old build and
their instructions are compared after normalising what a rename or a moved file changes:

  - addresses and encodings (the /*0000*/ columns) are dropped;
  - with --params, offsets into the kernel-parameter bank at or above the first parameter
    (c[0x0][0x210] on sm_90) are replaced by a placeholder: a kernel that lost an unused parameter
    reads the others at other offsets, with the same instructions.

Usage
  tests/sass_diff.py OLD NEW [--map OLD_RE=NEW_RE ...] [--params] [--arch sm_90a] [--show N]

OLD and NEW are objects or programs (cuobjdump -sass reads both) or text files of cuobjdump's
output (.sass). Kernels are named by their demangled names; --map pairs an old name with a new one
by regular expressions matched against the whole demangled name (the first map that matches an old
kernel names the new kernel it is compared with; \1, \2 ... in NEW_RE stand for what OLD_RE's
groups matched; a kernel no map names is paired with the new kernel of the same name). Prints one line per pair (identical / differs, with the instruction
counts and the first differing line) and the kernels left unpaired; exits 1 if any pair differs.

cuobjdump ships with the CUDA toolkit (CUDA_PATH/bin); a toolkit without it can take the one of
PyPI's nvidia-cuda-cuobjdump wheel (any recent version disassembles the code of older compilers).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

PARAM_BASE = 0x210  # sm_90's first kernel parameter in constant bank 0


def find_cuobjdump():
    """cuobjdump's path (PATH, then $CUDA_PATH/bin), or None"""
    found = shutil.which("cuobjdump")
    if found:
        return found
    cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
    cand = os.path.join(cuda, "bin", "cuobjdump")
    return cand if os.path.exists(cand) else None


def cuobjdump():
    found = find_cuobjdump()
    if not found:
        sys.exit("sass_diff.py: cuobjdump not found on PATH or in $CUDA_PATH/bin "
                 "(pip download nvidia-cuda-cuobjdump and unpack it, or use a full CUDA toolkit)")
    return found


def self_test_pair(check, good, bad, names, passed):
    """A SASS check's self-test: check(good) must return 0 and check(bad) 1. NAMES: the two
    listings' names for the failure line; PASSED: the line printed when both hold."""
    good_status, _ = check(good)
    bad_status, _ = check(bad)
    if good_status != 0 or bad_status != 1:
        print("self-test FAILED: %s -> %d (want 0), %s -> %d (want 1)" %
              (names[0], good_status, names[1], bad_status))
        return 1
    print("self-test: " + passed)
    return 0


def check_main(argv, doc, self_test, check):
    """The command line the SASS checks share (tests/sass_early_loads.py, sass_inside_path.py):
    OBJECT_OR_PROGRAM, read with cuobjdump -sass and given to check(text) -> (status, report
    lines), or --self-test; exit 2 on bad usage (DOC's Usage paragraph), 77 when not checked."""
    if len(argv) != 2:
        print(doc.split("Usage")[1].split("Exit")[0].strip(), file=sys.stderr)
        return 2
    if argv[1] == "--self-test":
        return self_test()
    tool = find_cuobjdump()
    if not tool:
        print("not checked: cuobjdump is not on PATH or in $CUDA_PATH/bin")
        return 77
    out = subprocess.run([tool, "-sass", argv[1]], capture_output=True, text=True)
    if out.returncode != 0:
        print("not checked: cuobjdump -sass %s failed: %s" % (argv[1], out.stderr.strip()[:200]))
        return 77
    status, report = check(out.stdout)
    print("\n".join(report))
    return status


def demangle(names):
    filt = shutil.which("c++filt") or shutil.which("cu++filt")
    if not filt:
        return {n: n for n in names}
    out = subprocess.run([filt], input="\n".join(names), capture_output=True, text=True).stdout
    return dict(zip(names, out.splitlines()))


def read_sass(path, arch):
    if path.endswith(".sass"):
        text = open(path).read()
    else:
        text = subprocess.run([cuobjdump(), "-sass", path], capture_output=True, text=True,
                              check=True).stdout
    return parse_sass(text, arch)


def made_up_listing(function, instructions, arch="sm_90"):
    """cuobjdump -sass's form of a made-up kernel, for the SASS checks' self-tests: FUNCTION as
    cuobjdump names it, INSTRUCTIONS without their trailing ';', 16 bytes apart"""
    lines = ["        code for %s" % arch, "        Function : %s" % function]
    lines += ["        /*%04x*/                   %s ;   /* 0x0 */" % (16 * i, x)
              for i, x in enumerate(instructions)]
    return "\n".join(lines) + "\n"


def parse_sass(text, arch):
    """{demangled kernel name: [instruction, ...]} of cuobjdump -sass output, for code of `arch`
    (None: every arch)"""
    kernels, cur, cur_arch = {}, None, None
    for line in text.splitlines():
        m = re.match(r"\s*code for (sm_\w+)", line)
        if m:
            cur_arch = m.group(1)
            continue
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            cur = m.group(1) if (arch is None or cur_arch == arch) else None
            if cur:
                kernels[cur] = []
            continue
        if cur is None:
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s*(.*?)\s*;?\s*/\*.*\*/\s*$", line)
        if m:
            kernels[cur].append(m.group(1).rstrip(" ;"))
    names = demangle(list(kernels))
    return {names[k]: v for k, v in kernels.items()}


def normalise(lines, params):
    if not params:
        return lines

    def sub(m):
        off = int(m.group(1), 16)
        return "c[0x0][P]" if off >= PARAM_BASE else m.group(0)

    return [re.sub(r"c\[0x0\]\[(0x[0-9a-f]+)\]", sub, ln) for ln in lines]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--map", action="append", default=[], metavar="OLD_RE=NEW_RE")
    ap.add_argument("--params", action="store_true",
                    help="ignore the offsets of kernel parameters")
    ap.add_argument("--arch", default=None, help="compare only this target, e.g. sm_90a")
    ap.add_argument("--show", type=int, default=0, metavar="N",
                    help="print the first N differing lines of each pair that differs")
    a = ap.parse_args()
    old, new = read_sass(a.old, a.arch), read_sass(a.new, a.arch)
    maps = []
    for m in a.map:
        if "=" not in m:
            sys.exit(f"sass_diff.py: --map {m}: want OLD_RE=NEW_RE")
        o, n = m.split("=", 1)
        maps.append((re.compile(o), n))
    used_new, differs, pairs = set(), 0, 0
    for oname in sorted(old):
        target = None
        for ore, npat in maps:
            m = ore.fullmatch(oname)
            if m:
                # \1, \2 ... in the new pattern stand for what the old one's groups matched
                nre = re.compile(re.sub(r"\\(\d)", lambda g: re.escape(m.group(int(g.group(1)))),
                                        npat))
                hits = [n for n in new if nre.fullmatch(n)]
                if len(hits) != 1:
                    print(f"?? {oname}: the map names {len(hits)} new kernels")
                    differs += 1
                    target = ""
                else:
                    target = hits[0]
                break
        if target is None:
            target = oname if oname in new else ""
        if not target:
            print(f"-- old only: {oname}")
            continue
        used_new.add(target)
        pairs += 1
        a_lines, b_lines = normalise(old[oname], a.params), normalise(new[target], a.params)
        same = a_lines == b_lines
        differs += not same
        label = oname if oname == target else f"{oname}\n   -> {target}"
        print(f"{'identical' if same else 'DIFFERS  '} {len(a_lines):6d} / {len(b_lines):6d}  {label}")
        if not same:
            diff = [(i, x, y) for i, (x, y) in
                    enumerate(zip(a_lines + [""] * len(b_lines), b_lines + [""] * len(a_lines)))
                    if x != y]
            for i, x, y in diff[:max(a.show, 1)]:
                print(f"     line {i}: {x!r}\n            {y!r}")
    for n in sorted(set(new) - used_new):
        print(f"++ new only: {n}")
    print(f"{pairs} pairs compared, {differs} differ")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
