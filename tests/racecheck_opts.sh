# shellcheck shell=bash disable=SC2034
# tests/racecheck_opts.sh - sourced by tests/sanitize.sh and tests/mutants.sh: sets racecheck_opts,
# synccheck_opts (arrays of compute-sanitizer options) and race_async_note (one line saying whether
# cp.async copies are tracked). Needs compute-sanitizer on PATH.
#
# racecheck also tracks cp.async (memcpy_async) copies into shared memory when the sanitizer has the
# switch; it is named explicitly rather than left to the default of the installed version. A wait
# one group short (a stage read before its copy lands) passes every --test case on a GPU, because
# the copy lands in time; racecheck reports it (mutant 002: 86016 hazards at 64x64x64, none without
# the bug; an H100, 2026-12-06).
#
# Kernels that racecheck and synccheck leave out, each for a reason outside this repository's code
# (the option is --kernel-name-exclude since compute-sanitizer 2023.3, --kernel-regex-exclude before):
#   cudnn               cuDNN's own kernels (chapters 02 and 10 call them): racecheck reports hazards
#                       inside its fused attention kernels, and a run of chapter 10 under synccheck
#                       overflowed the tool's barrier tracking where cuDNN's next launch was due
#                       and failed every launch from there on
#   probe_turns_kernel  10_attn_probe's test of named-barrier turns: one warpgroup's bar.arrive and
#                       the other's bar.sync on the same barrier order the shared position it hands
#                       over (the PTX ISA: an arrive synchronizes with a later sync on the barrier),
#                       an ordering the racecheck of CUDA 13.0 does not model; the test itself checks
#                       the turns' order, and memcheck, synccheck and initcheck still run it
sanitizer_help=$(compute-sanitizer --help 2>/dev/null)
racecheck_opts=()
if grep -q -- '--racecheck-memcpy-async' <<<"$sanitizer_help"; then
    racecheck_opts+=(--racecheck-memcpy-async yes)
    race_async_note="racecheck: cp.async hazards checked (--racecheck-memcpy-async yes)"
else
    race_async_note="racecheck: this compute-sanitizer has no --racecheck-memcpy-async switch (its default applies)"
fi
exclude_opt=--kernel-name-exclude
grep -q -- '--kernel-name-exclude' <<<"$sanitizer_help" || exclude_opt=--kernel-regex-exclude
racecheck_opts+=("$exclude_opt" kns=cudnn "$exclude_opt" kns=probe_turns_kernel)
synccheck_opts=("$exclude_opt" kns=cudnn)
unset sanitizer_help exclude_opt
