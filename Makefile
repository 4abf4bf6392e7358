# Tensor Core chapters - top-level, non-recursive Makefile.
#
# Every chapter folder holds a chapter.mk with data (sources, libraries, minimum SM); this file
# turns that data into rules. Everything generated goes to build/ (BUILD=... on make's command
# line moves it: `make compat` builds each toolkit and SM in its own folder). `make help` lists the
# verbs.
#
# Overridable: CUDA_PATH, NVCC, HOST_CC, SM (e.g. SM="80 90"), CUDNN_PATH, GIT_SHA, and CHAPTERS
# (e.g. CHAPTERS="03 05": build, test, bench and sanitize only those; `make` inside a chapter
# folder sets it to that chapter).

CUDA_PATH ?= /usr/local/cuda
NVCC      ?= $(CUDA_PATH)/bin/nvcc
HOST_CC   ?= gcc
BUILD     := build

.DELETE_ON_ERROR:
.SUFFIXES:
.DEFAULT_GOAL := all
MAKEFLAGS += --no-builtin-rules

# ---- target GPUs ------------------------------------------------------------------------------
# SM: compute capabilities to build for, without the dot. Detected from the GPUs that nvidia-smi
# sees; with no GPU visible, SM_DEFAULT (Ampere and Hopper: every chapter, the sm_90a-only code
# too, is compiled, so CI checks that it all builds).
SM_DEFAULT := 80 90
ifeq ($(origin SM),undefined)
  SM_DETECTED := $(sort $(subst .,,$(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | grep -E '^[0-9]+\.[0-9]+$$')))
  SM := $(if $(SM_DETECTED),$(SM_DETECTED),$(SM_DEFAULT))
  SM_FROM := $(if $(SM_DETECTED),detected with nvidia-smi,no GPU visible: default list)
else
  SM_FROM := set by the user
endif
$(info SM        : $(SM) ($(SM_FROM)))
ifneq ($(strip $(shell echo '$(SM)' | tr ' ' '\n' | grep -vE '^[0-9]+$$')),)
  $(error SM="$(SM)": give compute capabilities as numbers without a dot, e.g. SM="80 90")
endif
# Every target must be one this nvcc can compile for (CUDA 13 dropped sm_70 and sm_72, for one).
NVCC_SMS := $(patsubst sm_%,%,$(shell $(NVCC) --list-gpu-code 2>/dev/null))
ifneq ($(NVCC_SMS),)
  SM_BAD := $(firstword $(filter-out $(NVCC_SMS),$(SM)))
  ifneq ($(SM_BAD),)
    NVCC_VERSION := $(shell $(NVCC) --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
    SM_WHY := $(if $(and $(filter 70 72,$(SM_BAD)),$(filter 13.%,$(NVCC_VERSION))),CUDA 13 dropped sm_70 and sm_72 (build them with CUDA 12.x),it cannot compile for sm_$(SM_BAD))
    $(error SM="$(SM)": $(NVCC) is CUDA $(NVCC_VERSION) and $(SM_WHY); it supports $(NVCC_SMS))
  endif
endif

# ---- cuDNN (optional: chapter 02 needs it, chapter 06's baseline rung uses it) -----------------
# Found in $(CUDNN_PATH), the CUDA toolkit, or the system folders (Debian/Ubuntu packages put it in
# /usr/include/x86_64-linux-gnu and /usr/lib/x86_64-linux-gnu).
# A CUDNN_PATH that is set is the only place searched.
CUDNN_SEARCH := $(if $(CUDNN_PATH),$(CUDNN_PATH),$(CUDA_PATH) /usr/local /usr)
CUDNN_INC := $(firstword $(foreach p,$(CUDNN_SEARCH),$(wildcard $(p)/include/cudnn.h $(p)/include/x86_64-linux-gnu/cudnn.h $(p)/include/aarch64-linux-gnu/cudnn.h)))
CUDNN_LIBFILE := $(firstword $(foreach p,$(CUDNN_SEARCH),$(foreach l,lib64 lib lib/x86_64-linux-gnu lib/aarch64-linux-gnu,$(wildcard $(p)/$(l)/libcudnn.so.9 $(p)/$(l)/libcudnn.so))))
ifneq ($(and $(CUDNN_INC),$(CUDNN_LIBFILE)),)
  HAVE_CUDNN := 1
  CUDNN_CFLAGS := -I$(dir $(CUDNN_INC))
  # not linked: common/cudnn_loader.c dlopen()s it (exit 77 when it is missing at run time);
  # the RUNPATH tells dlopen where it was found at build time
  CUDNN_LDFLAGS := -Xlinker -rpath -Xlinker $(dir $(CUDNN_LIBFILE))
  $(info cuDNN     : $(dir $(CUDNN_INC)) and $(dir $(CUDNN_LIBFILE)))
else
  HAVE_CUDNN :=
  $(info cuDNN     : not found (set CUDNN_PATH); chapters that need it are skipped)
endif

# ---- flags ------------------------------------------------------------------------------------
GIT_SHA ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
export TC_GIT_SHA := $(GIT_SHA)

DEPFLAGS  := -MMD -MP
# -ffp-contract=off: the host references must not have their error-free transformations (the
# compensated f64 dot product of common/verify.c) fused into FMAs by the compiler
CFLAGS    := -std=c11 -O3 -g -ffp-contract=off -Wall -Wextra -Wshadow -Wno-unused-parameter -Icommon \
             -I$(CUDA_PATH)/include $(CUDNN_CFLAGS) $(DEPFLAGS)
NVCCFLAGS := -std=c++17 -O3 -lineinfo -Icommon -Xcompiler -Wall $(DEPFLAGS)
LDFLAGS   := -Xlinker -rpath -Xlinker $(CUDA_PATH)/lib64
LDLIBS    := -lpthread -ldl -lm

# Targets. A program has a minimum SM and may have arch-specific targets (TARGETS_A, e.g. "90a":
# code with instructions one compute capability runs and no later one, wgmma on sm_90a; "100a"
# would be Blackwell's). It is compiled for every target in SM at or above its minimum; a target s
# whose "sa" is in TARGETS_A is compiled as sm_sa (it runs on the same GPUs as sm_s). With ONLY_A
# set, the program is compiled for its arch-specific targets alone (the wgmma programs).
# Each becomes -gencode=arch=compute_XX,code=sm_XX (real code, no PTX: build for your GPU).
#   $(1) minimum SM, $(2) TARGETS_A, $(3) ONLY_A
below       = $(foreach s,$(SM),$(if $(shell [ $(s) -lt $(1) ] && echo y),$(s)))
chapter_sms = $(if $(3),$(filter $(patsubst %a,%,$(2)),$(SM)),$(filter-out $(call below,$(1)),$(SM)))
target_sfx  = $(if $(filter $(1)a,$(2)),a)
# the program's targets as the build names them, e.g. "80 90a" (TC_BUILD_TARGETS)
build_targets = $(foreach s,$(call chapter_sms,$(1),$(2),$(3)),$(s)$(call target_sfx,$(s),$(2)))
gencode     = $(foreach t,$(call build_targets,$(1),$(2),$(3)),-gencode=arch=compute_$(t),code=sm_$(t))

# Everything is rebuilt when the compilers, flags or targets change (e.g. `make SM=80`, then
# `make`): objects depend on a stamp file whose content is the current settings.
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_NOW := $(NVCC) | $(HOST_CC) | $(SM) | $(CFLAGS) | $(NVCCFLAGS) | $(CUDNN_CFLAGS)
$(shell mkdir -p $(BUILD); [ "$$(cat $(FLAGS_STAMP) 2>/dev/null)" = "$(FLAGS_NOW)" ] || echo "$(FLAGS_NOW)" > $(FLAGS_STAMP))

# ---- common/ ----------------------------------------------------------------------------------
COMMON_C   := $(if $(HAVE_CUDNN),$(wildcard common/*.c),$(filter-out common/cudnn_loader.c,$(wildcard common/*.c)))
COMMON_CU  := $(wildcard common/*.cu)
COMMON_OBJ := $(COMMON_C:%=$(BUILD)/%.o) $(COMMON_CU:%=$(BUILD)/%.o)
LIBCOMMON  := $(BUILD)/libcommon.a

$(BUILD)/common/%.c.o: common/%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CC) $(CFLAGS) -c $< -o $@

$(BUILD)/common/%.cu.o: common/%.cu $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(call gencode,70,) -c $< -o $@

$(LIBCOMMON): $(COMMON_OBJ)
	@rm -f $@
	ar rcs $@ $^

# ---- CPU unit tests (no GPU needed) ------------------------------------------------------------
# Each tests/test_*.c (the tests of common/) and each file a chapter names in $(d)_CPU_TESTS is its
# own program (common/unit.h): build/tests/common/test_x, build/tests/<chapter>/test_x.
# -lstdc++: libcommon.a has one CUDA C++ object (common/shared_poison.cu), whose launch stub needs
# the C++ runtime when a test that uses the GEMM driver links it with the C compiler
UNIT_LDLIBS := -L$(CUDA_PATH)/lib64 -lcudart_static -ldl -lrt -lstdc++ $(LDLIBS)
COMMON_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/common/%,$(wildcard tests/test_*.c))

$(BUILD)/tests/%.c.o: tests/%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CC) $(CFLAGS) -c $< -o $@

$(BUILD)/tests/common/%: $(BUILD)/tests/%.c.o $(LIBCOMMON)
	@mkdir -p $(@D)
	$(HOST_CC) -o $@ $^ $(UNIT_LDLIBS)

# ---- chapters ---------------------------------------------------------------------------------
# A chapter.mk sets, with d = its folder:
#   $(d)_SRCS    sources in the folder (.c for host code, .cu for device code) of the program
#                build/bin/$(d)
#   $(d)_PROGS   optional: the chapter's programs when it has more than one; program p is built
#                from $(p)_SRCS into build/bin/$(p) (the default is one program named $(d))
#   $(d)_LIBS    libraries to link (e.g. -lcublas)
#   $(d)_MIN_SM  minimum compute capability (e.g. 80)
#   $(d)_TARGETS_A  the arch-specific targets its code has, e.g. "90a" (wgmma, setmaxnreg): a
#                target in SM whose number is listed is compiled as that arch-specific target;
#                kernels that exist only there guard their bodies (TC_SM90A) and their variant
#                rows name the target (.target = "90a"), which the drivers check
#   $(d)_ONLY_A  "yes" when the program is built for its arch-specific targets alone
#   $(d)_NEEDS   "cudnn" when it needs cuDNN (skipped without it), "cudnn?" when it uses cuDNN
#                where found (compiled with -DTC_HAVE_CUDNN=1 then) and builds without it
#   $(d)_CPU_TESTS      optional: the chapter's CPU test programs, test_x.c files in the folder
#   $(d)_CPU_TEST_SRCS  the chapter's host sources those tests exercise (linked into each)
# A program may override the chapter's minimum and targets with $(p)_MIN_SM, $(p)_TARGETS_A and
# $(p)_ONLY_A (chapter 05: the sm_90a wgmma programs beside the sm_80 mma.sync ones); its files
# are then compiled for its own targets, so a source file belongs to one such program only. Every
# source of a program is compiled with -DTC_BUILD_TARGETS='"80 90a"' (its targets), which the
# drivers read to tell whether this build has code a variant needs.
CHAPTER_MKS  := $(sort $(wildcard */chapter.mk))
ALL_CHAPTERS := $(patsubst %/chapter.mk,%,$(CHAPTER_MKS))
$(foreach mk,$(CHAPTER_MKS),$(eval d := $(patsubst %/chapter.mk,%,$(mk)))$(eval include $(mk)))
# CHAPTERS: the chapters the verbs act on; each word is a folder or its number ("03")
ifeq ($(strip $(CHAPTERS)),)
  CHAPTERS := $(ALL_CHAPTERS)
else
  CHAPTERS_ASKED := $(CHAPTERS)
  override CHAPTERS := $(sort $(foreach w,$(CHAPTERS),$(filter $(w) $(w)_%,$(ALL_CHAPTERS))))
  $(foreach w,$(CHAPTERS_ASKED),$(if $(filter $(w) $(w)_%,$(ALL_CHAPTERS)),,$(error CHAPTERS: no chapter '$(w)'; the chapters are $(ALL_CHAPTERS))))
  $(info CHAPTERS  : $(CHAPTERS))
endif

BUILT_ITEMS      := # folder/program of every program that is built, the form tests/*.sh take
BUILT_PROGRAMS   :=
SKIPPED_PROGRAMS :=
CPU_TESTS        := $(if $(CHAPTERS_ASKED),,$(COMMON_TESTS)) # only a whole run tests common/
# every program as folder/program
programs = $(foreach c,$(1),$(foreach p,$(or $($(c)_PROGS),$(c)),$(c)/$(p)))

define chapter_rules
$(1)_PROGS := $$(or $$($(1)_PROGS),$(1))
$(1)_CUDNN := $$(if $$(filter cudnn cudnn?,$$($(1)_NEEDS)),$$(HAVE_CUDNN))
$(1)_XCFLAGS := $$(if $$($(1)_CUDNN),$$(CUDNN_CFLAGS) -DTC_HAVE_CUDNN=1)
$(1)_XLIBS := $$(if $$($(1)_CUDNN),$$(CUDNN_LDFLAGS))

$(BUILD)/$(1)/%.c.o: $(1)/%.c $(FLAGS_STAMP)
	@mkdir -p $$(@D)
	$$(HOST_CC) $$(CFLAGS) -I$(1) $$($(1)_XCFLAGS) $$(PROG_DEFINES) -c $$< -o $$@

$(1)_TEST_OBJ := $$(patsubst %,$(BUILD)/$(1)/%.o,$$($(1)_CPU_TEST_SRCS))
$(1)_TEST_BINS := $$(patsubst %.c,$(BUILD)/tests/$(1)/%,$$($(1)_CPU_TESTS))
$(BUILD)/tests/$(1)/%: $(BUILD)/$(1)/%.c.o $$($(1)_TEST_OBJ) $(LIBCOMMON)
	@mkdir -p $$(@D)
	$$(HOST_CC) -o $$@ $$^ $(UNIT_LDLIBS)
-include $$(patsubst %.c,$(BUILD)/$(1)/%.c.d,$$($(1)_CPU_TESTS))

$$(foreach p,$$($(1)_PROGS),$$(eval $$(call program_rules,$(1),$$(p))))
endef

# program $(2) of chapter $(1)
define program_rules
$(2)_MIN_SM := $$(or $$($(2)_MIN_SM),$$($(1)_MIN_SM))
$(2)_TARGETS_A := $$(or $$($(2)_TARGETS_A),$$($(1)_TARGETS_A))
$(2)_ONLY_A    := $$(or $$($(2)_ONLY_A),$$($(1)_ONLY_A))
$(2)_TARGETS   := $$(call build_targets,$$($(2)_MIN_SM),$$($(2)_TARGETS_A),$$($(2)_ONLY_A))
$(2)_SKIP := $$(if $$($(2)_TARGETS),,$$(if $$($(2)_ONLY_A),needs $$(addprefix sm_,$$($(2)_TARGETS_A)) ($$(patsubst %a,%,$$($(2)_TARGETS_A)) in SM) and SM="$$(SM)",no target in SM="$$(SM)" is sm_$$($(2)_MIN_SM) or newer))
$(2)_SKIP := $$(or $$($(2)_SKIP),$$(if $$(filter cudnn,$$($(1)_NEEDS)),$$(if $$(HAVE_CUDNN),,cuDNN not found)))
ifeq ($$($(2)_SKIP),)
BUILT_ITEMS += $(1)/$(2)
BUILT_PROGRAMS += $(BUILD)/bin/$(2)
$(2)_GENCODE := $$(call gencode,$$($(2)_MIN_SM),$$($(2)_TARGETS_A),$$($(2)_ONLY_A))
$(2)_OBJ := $$(patsubst %,$(BUILD)/$(1)/%.o,$$($(2)_SRCS))
$$($(2)_OBJ): PROG_DEFINES := -DTC_BUILD_TARGETS='"$$($(2)_TARGETS)"'

$$(patsubst %,$(BUILD)/$(1)/%.o,$$(filter %.cu,$$($(2)_SRCS))): $(BUILD)/$(1)/%.cu.o: $(1)/%.cu $(FLAGS_STAMP)
	@mkdir -p $$(@D)
	$$(NVCC) $$(NVCCFLAGS) -I$(1) $$($(1)_XCFLAGS) $$(PROG_DEFINES) $$($(2)_GENCODE) -c $$< -o $$@

$(BUILD)/bin/$(2): $$($(2)_OBJ) $(LIBCOMMON)
	@mkdir -p $$(@D)
	$$(NVCC) $$($(2)_GENCODE) -o $$@ $$^ $$(LDFLAGS) $$($(1)_LIBS) $$($(1)_XLIBS) $$(LDLIBS)
	@rm -f $(BUILD)/skipped/$(2)
-include $$($(2)_OBJ:.o=.d)
else
SKIPPED_PROGRAMS += $(2)
.PHONY: skip-$(2)
skip-$(2):
	@mkdir -p $(BUILD)/skipped
	@rm -f $(BUILD)/bin/$(2); echo '$$($(2)_SKIP)' > $(BUILD)/skipped/$(2)
	@echo 'skipping $(2): $$($(2)_SKIP)'
endif
endef
# A chapter's example.cu ($(d)_EXAMPLE, CONTRIBUTING.md "The plain launcher"): its best rung called
# from a plain program, built from the file alone with common/ on the include path, for the target
# $(d)_EXAMPLE_TARGET names: an arch-specific one ("90a": built when 90 is in SM) or a minimum SM
# ("80": every target in SM at or above it), linking $(d)_EXAMPLE_LIBS (e.g. -lcublas). make test
# runs it (tests/run_tests.sh --example).
EXAMPLES         :=
SKIPPED_EXAMPLES :=
define example_rules
ifneq ($$($(1)_EXAMPLE),)
$(1)_EX_TARGET := $$($(1)_EXAMPLE_TARGET)
$(1)_EX_A      := $$(filter %a,$$($(1)_EX_TARGET))
$(1)_EX_MIN    := $$(patsubst %a,%,$$($(1)_EX_TARGET))
$(1)_EX_SMS    := $$(call chapter_sms,$$($(1)_EX_MIN),$$($(1)_EX_A),$$($(1)_EX_A))
ifneq ($$($(1)_EX_SMS),)
EXAMPLES += $(BUILD)/examples/$(1)
$(BUILD)/examples/$(1): $(1)/$$($(1)_EXAMPLE) $(FLAGS_STAMP)
	@mkdir -p $$(@D)
	$$(NVCC) -std=c++17 -O3 -Icommon -MMD -MP -MF $$@.d $$(call gencode,$$($(1)_EX_MIN),$$($(1)_EX_A),$$($(1)_EX_A)) -o $$@ $$< \
		$$(LDFLAGS) $$($(1)_EXAMPLE_LIBS)
	@rm -f $(BUILD)/skipped/example-$(1)
-include $(BUILD)/examples/$(1).d
else
SKIPPED_EXAMPLES += $(1)
.PHONY: skip-example-$(1)
skip-example-$(1):
	@mkdir -p $(BUILD)/skipped
	@rm -f $(BUILD)/examples/$(1); echo 'needs sm_$$($(1)_EX_TARGET) (SM="$$(SM)")' > $(BUILD)/skipped/example-$(1)
endif
endif
endef
$(foreach c,$(CHAPTERS),$(eval $(call chapter_rules,$(c)))$(eval CPU_TESTS += $($(c)_TEST_BINS))$(eval $(call example_rules,$(c))))
# the CPU tests' objects are made by a chain of pattern rules: keep them (no rebuild every time)
.SECONDARY: $(patsubst $(BUILD)/tests/common/%,$(BUILD)/tests/%.c.o,$(COMMON_TESTS)) \
            $(foreach c,$(CHAPTERS),$(patsubst %.c,$(BUILD)/$(c)/%.c.o,$($(c)_CPU_TESTS)))

-include $(COMMON_OBJ:.o=.d) $(patsubst $(BUILD)/tests/common/%,$(BUILD)/tests/%.c.d,$(COMMON_TESTS))

# ---- verbs ------------------------------------------------------------------------------------
.PHONY: all test check bench plot sanitize compat mutants docs format clean help

all: $(LIBCOMMON) $(CPU_TESTS) $(BUILT_PROGRAMS) $(SKIPPED_PROGRAMS:%=skip-%) $(EXAMPLES) $(SKIPPED_EXAMPLES:%=skip-example-%) ## build everything into build/ (default)

# REQUIRE_GPU=1: every skip fails (a GPU run where everything must run); also read from the
# environment as TC_REQUIRE_GPU
REQUIRE_GPU ?= $(TC_REQUIRE_GPU)
# NOBUILD=1: test, bench or sanitize what BUILD holds without bringing it up to date first (a build
# made on another machine of the same toolkit, unpacked here: make would rebuild it for the newer
# sources' times)
BUILD_FIRST := $(if $(filter-out 0,$(NOBUILD)),,all)
test: $(BUILD_FIRST) ## build, then run the CPU unit tests, the build of each chapter on its own, the bad-input tests and every chapter's --test (REQUIRE_GPU=1: a skip fails; NOBUILD=1: test BUILD as it is)
	@TC_REQUIRE_GPU="$(REQUIRE_GPU)" TC_HAVE_CUDNN="$(HAVE_CUDNN)" TC_NVCC="$(NVCC)" tests/run_tests.sh $(BUILD) \
		$(foreach t,$(CPU_TESTS),--unit $(t)) $(foreach c,$(CHAPTERS),--chapter $(c)) \
		$(foreach c,$(CHAPTERS),$(if $($(c)_EXAMPLE),--example $(c))) \
		$(call programs,$(CHAPTERS))

check: test ## alias of test

# bench: each program writes build/bench/<program>.csv; tests/bench.sh merges them all, this run's
# and those earlier runs left, into build/bench.csv in chapter order (TC_BENCH_ORDER), so chapters
# benched one CHAPTERS=... at a time add up to one complete file. QUICK=1: a program whose chapter.mk
# declares <program>_BENCH_QUICK (e.g. --size 8192x8192x8192, --shape Box-2D49P) runs
# `--bench <those arguments>`, passed as the item 'folder/program=ARGS'; the others run their
# full --bench.
QUICK ?=
bench_quick = $(if $(filter-out 0,$(QUICK)),$(strip $($(notdir $(1))_BENCH_QUICK)))
bench_item  = '$(1)$(if $(call bench_quick,$(1)),=$(call bench_quick,$(1)))'
bench: $(BUILD_FIRST) ## run every program's --bench one after another; table + build/bench.csv, merged with the rows earlier runs left in build/bench/ (QUICK=1: one size per problem, a few minutes)
	@TC_BENCH_ORDER="$(strip $(call programs,$(ALL_CHAPTERS)))" tests/bench.sh $(BUILD) \
		$(foreach i,$(BUILT_ITEMS),$(call bench_item,$(i)))

# plot: CSV and PNG name the input and the overview figure; the chapters' figures are PNG with -NN
# before the extension (build/ladder-03.png). The repository's figures:
#   make plot CSV=docs/bench-h200.csv PNG=docs/ladder-h200.png
CSV ?= $(BUILD)/bench.csv
PNG ?= $(BUILD)/ladder.png
plot: ## draw the ladder from build/bench.csv: build/ladder.png (one panel per problem) and build/ladder-NN.png per chapter; CSV=... PNG=... for other files (needs python3 with matplotlib)
	@tests/plot_ladder.sh $(CSV) $(PNG)

sanitize: $(BUILD_FIRST) ## every chapter's --test (small sizes) under compute-sanitizer's four tools
	@tests/sanitize.sh $(BUILD) $(BUILT_ITEMS)

# compat: not part of test (it takes long). CUDA 12.9 and the newest CUDA 13 come from PyPI into
# $(BUILD)/compat/ (no system change); COMPAT_TOOLKITS, COMPAT_SM and COMPAT_JOBS (environment)
# choose other toolkits, targets and parallelism (tests/compat.sh says how).
compat: ## build every program with this toolkit, CUDA 12.9 and the newest CUDA 13 (from PyPI, into build/compat/) for SM 70..120: table toolkit x SM x program in build/compat/table.txt (long; not part of test)
	@TC_CUDA_PATH="$(CUDA_PATH)" TC_NVCC="$(NVCC)" TC_CHAPTERS="$(CHAPTERS_ASKED)" tests/compat.sh $(BUILD)/compat \
		$(call programs,$(CHAPTERS))

# mutants: not part of test (it needs a GPU; CI only checks that every patch applies, in make
# test). tests/mutants.sh applies each tests/mutants/*.patch (a plausible bug) to a scratch copy of
# the tree, rebuilds the one program it names (from BUILD's objects: only what the patch touches is
# recompiled, builds in parallel), runs that program's --test for the variants it names and prints
# caught/missed per mutant and a summary; SHARD=i/n runs mutant k (sorted by name) when k mod n is
# i - 1 (four shards fit a 10-minute call each on an H200: `tests/mutants.sh --list --shard 1/4`
# estimates them), CHAPTERS the mutants of those chapters. The compilers and targets of this make
# are passed on.
SHARD ?=
STOP_AFTER ?=
mutants: ## apply each tests/mutants/*.patch to a scratch copy, rebuild its program, run its --test: caught/missed per mutant, BUILD/mutants/table.txt (SHARD=i/n, CHAPTERS=..., STOP_AFTER=K: end a mutant's runs at its K-th failing case; needs a GPU; not part of test)
	@TC_SM="$(SM)" TC_NVCC="$(NVCC)" TC_HOST_CC="$(HOST_CC)" TC_CUDA_PATH="$(CUDA_PATH)" TC_CUDNN_PATH="$(CUDNN_PATH)" \
		tests/mutants.sh --build $(BUILD) $(if $(SHARD),--shard $(SHARD)) $(if $(STOP_AFTER),--stop-after $(STOP_AFTER)) \
		$(if $(CHAPTERS_ASKED),--chapters "$(CHAPTERS_ASKED)")

# docs: what the lessons generate from data: the measured tables (from docs/bench-h200.csv, between
# <!-- table: ... --> markers) and README's support table (from the chapters' declarations and the
# programs' --list, so the programs are built first); prose figures are only checked (make test)
docs: $(BUILT_PROGRAMS) ## rewrite the generated tables of the lessons (docs/bench-h200.csv), README's support table (the declarations) and CONTRIBUTING's forced choices (--list)
	python3 tests/rename_rows.py --write
	python3 tests/doc_numbers.py --write
	python3 tests/support_table.py --write --bin $(BUILD)/bin
	python3 tests/forced_choices.py --write --bin $(BUILD)/bin

format: ## apply .clang-format to every C, CUDA and header file
	clang-format -i $(sort $(wildcard common/*.[ch] common/*.cu common/*.cuh tests/*.[ch] */*.c */*.h */*.cu */*.cuh))

clean: ## remove build/
	rm -rf $(BUILD)

help: ## this list
	@awk -F':.*## ' '/^[a-z]+:.*## /{printf "  make %-10s %s\n", $$1, $$2}' $(firstword $(MAKEFILE_LIST))
