# glgemm: plain Makefile.  `make` builds ./glgemm; `make check` runs the Check
# suite; `make sanitize` runs the same suite built with ASan + UBSan; `make run`
# tunes the default GL device.  `make run` and `make check` first install the
# Debian packages that are missing (see `deps`).

CC      ?= cc
BUILD   ?= build
BIN     ?= glgemm
OPT     ?= -O2
# -fPIC: the core objects also make libglgemm.so; -fvisibility=hidden: it
# exports glgemm.h's functions (GLGEMM_API) only.
CFLAGS_BASE = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Werror -g $(OPT) -I. \
	-fPIC -fvisibility=hidden
PREFIX  ?= /usr/local
VERSION := $(shell sed -n 's/^\#define GLGEMM_VERSION_STRING "\(.*\)"/\1/p' glgemm.h)

PKG_LIBS = egl gl glesv2 glew glfw3 openblas
PKG_CFLAGS := $(shell pkg-config --cflags $(PKG_LIBS) 2>/dev/null)
PKG_LDLIBS := $(shell pkg-config --libs $(PKG_LIBS) 2>/dev/null)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LDLIBS := $(shell pkg-config --libs check 2>/dev/null)

# SAN is set by `make sanitize`; CFLAGS/LDFLAGS from the command line add to these.
ALL_CFLAGS = $(CFLAGS_BASE) $(PKG_CFLAGS) $(SAN) $(CFLAGS)
ALL_LDFLAGS = $(SAN) $(LDFLAGS)
LDLIBS  += $(PKG_LDLIBS) -lm -lpthread

# The layers, bottom first (docs/architecture.md; `make layers` checks that
# no file includes against this order and that only glhost/ calls GL).
# Every .c file of a layer folder belongs to the core; the library
# (libglgemm) is the layers up to lib/ (LIB_SRC: no tuner, evaluator, report
# or gnuplot code); the front end lives in cli/, the Check suite in tests/.
# New files need no Makefile edit.
LAYERS   := gen base glhost store lib search eval report cli
# The MPI transport: glgemm-mpi's only (`make mpi`, below), never the core's.
MPI_SRC  := eval/mpi.c
LIB_SRC  := $(sort $(wildcard gen/*.c base/*.c glhost/*.c store/*.c) $(filter-out lib/blas.c,$(wildcard lib/*.c)))
CORE_SRC := $(LIB_SRC) $(sort $(filter-out $(MPI_SRC),$(wildcard search/*.c eval/*.c report/*.c)))
CLI_SRC  := $(sort $(wildcard cli/*.c))
TEST_SRC := $(sort $(wildcard tests/check_*.c))
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
DEPS     := $(CORE_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(FUZZ_SRC:%.c=$(BUILD)/%.d)
TESTBIN  := $(BUILD)/check_glgemm

# Debian packages the build, the tests and the figures need.
PACKAGES = build-essential pkg-config libegl-dev libgl-dev libgles-dev libglvnd-dev \
	libegl-mesa0 libgl1-mesa-dri libglew-dev libglfw3-dev check libsubunit-dev \
	libopenblas-dev xvfb xauth gnuplot-nox glslang-tools clang libclang-rt-14-dev \
	wasi-libc libclang-rt-14-dev-wasm32 lld chromium nodejs

.PHONY: all deps check soak layers sanitize run shaders clean test-bin fuzz fuzz-bin fuzz-smoke valgrind sanitize-ci \
	install uninstall tsan web web-example
.DEFAULT_GOAL := all

LIB_A  := $(BUILD)/libglgemm.a
LIB_SO := $(BUILD)/libglgemm.so

all: $(BIN) $(LIB_A) $(LIB_SO)

$(BIN): $(CLI_OBJ) $(BUILD)/libglgemm-core.a
	$(CC) $(ALL_CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libglgemm-core.a $(ALL_LDFLAGS) $(LDLIBS)

$(BUILD)/libglgemm-core.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The library of glgemm.h (lib/api.c is its face: it runs through glhost/
# and picks the variant from store/'s records): the layers up to lib/ only;
# --no-undefined fails the link if any of them calls into the tuner.
$(LIB_A): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIB_SO): $(LIB_OBJ)
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,libglgemm.so.0 -Wl,--no-undefined -o $@ $(LIB_OBJ) \
	  $(ALL_LDFLAGS) $(LDLIBS)

# Objects follow the compile flags: a change of flags (a new -f option, SAN)
# rebuilds them.
# A build without the packages' flags (pkg-config found none of them when
# this make started) stops here with one line naming what is missing,
# rather than with a compiler error about a header later.
$(BUILD)/cflags.txt: FORCE
	@if [ -z '$(strip $(PKG_LDLIBS))' ]; then \
	  missing=""; for l in $(PKG_LIBS); do pkg-config --exists $$l 2>/dev/null || missing="$$missing $$l"; done; \
	  if [ -n "$$missing" ]; then echo "make: the pkg-config packages$$missing are missing: run 'make deps' as root (make check and make run do it first)" >&2; \
	  else echo "make: the packages were installed after this make started: run it again" >&2; fi; exit 2; fi
	@mkdir -p $(BUILD)
	@echo '$(ALL_CFLAGS)' | cmp -s - $@ || echo '$(ALL_CFLAGS)' > $@
FORCE:

$(BUILD)/%.o: %.c $(BUILD)/cflags.txt
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(if $(filter tests/%,$<),$(CHECK_CFLAGS)) -MMD -MP -c -o $@ $<

$(TESTBIN): $(TEST_OBJ) $(BUILD)/libglgemm-core.a
	$(CC) $(ALL_CFLAGS) -o $@ $(TEST_OBJ) $(BUILD)/libglgemm-core.a $(ALL_LDFLAGS) $(CHECK_LDLIBS) $(LDLIBS)

test-bin: $(BIN) $(TESTBIN)

# The check's timing program (tests/perf/checkspeed.c; not part of test-bin).
DEPS += $(BUILD)/tests/perf/checkspeed.d
$(BUILD)/checkspeed: $(BUILD)/tests/perf/checkspeed.o $(BUILD)/libglgemm-core.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS) $(LDLIBS)

# How fast the library is to call (tests/perf/libspeed.c: the drop-in issue's
# figures; not a test).  `make $(BUILD)/libspeed`, or `make perf` for all four.
DEPS += $(BUILD)/tests/perf/libspeed.d
$(BUILD)/libspeed: $(BUILD)/tests/perf/libspeed.o $(BUILD)/libglgemm-core.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS) $(LDLIBS)

# The library over several devices against one (tests/perf/splitspeed.c:
# issue 32's figure; not a test).
DEPS += $(BUILD)/tests/perf/splitspeed.d
$(BUILD)/splitspeed: $(BUILD)/tests/perf/splitspeed.o $(BUILD)/libglgemm-core.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS) $(LDLIBS)

.PHONY: perf
perf: $(BUILD)/libspeed $(BUILD)/checkspeed $(BUILD)/overlap $(BUILD)/splitspeed

# Whether transfers from a second GL context overlap draws (tests/perf/overlap.c:
# EGL and GL alone, none of glgemm; figures, not a test).
DEPS += $(BUILD)/tests/perf/overlap.d
$(BUILD)/overlap: $(BUILD)/tests/perf/overlap.o
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS) $(LDLIBS) -lpthread

# The suite runs headless: EGL needs no display; the GLFW backend's cases need
# an X server, so the runner goes under xvfb-run when there is no DISPLAY.
# GLGEMM_BIN tells the CLI cases which binary to run.
XVFB = $(if $(DISPLAY),,$(shell command -v xvfb-run >/dev/null 2>&1 && echo 'xvfb-run -a -s "-screen 0 640x480x24"'))
# The layers' direction (tests/layers.py): includes only downward, GL only
# in glhost/, no include cycle.
layers:
	python3 tests/layers.py
# No circle of files (tests/cycles.py): no two of the core's objects
# (lib/blas.o included) use each other's global symbols, directly or
# through a chain.  Reads the objects `all` builds in $(BUILD).
.PHONY: cycles
cycles: all
	python3 tests/cycles.py $(BUILD)

# The browser suite (tests/check_browser.c, --backend browser) needs
# web/node_modules (npm ci: tests/web/deps.sh) and web/dist (make web)
# before the test binary runs.
check: deps
	python3 tests/layers.py
	$(MAKE) test-bin
	$(MAKE) cycles perf
	tests/web/deps.sh
	$(MAKE) --no-print-directory web >/dev/null
	$(MAKE) mpi $(BUILD)/mixfetch
	$(BUILD)/mixfetch 128 128 32 > /dev/null
	GLGEMM_BIN=$(abspath $(BIN)) GLGEMM_MPI_BIN=$(abspath $(MPI_BIN)) $(XVFB) $(TESTBIN)
	$(MAKE) fuzz-smoke
	tests/example/run.sh
	tests/blas/run.sh $(BUILD)
	tests/stress/conc.sh $(BUILD)
	tests/soak/kill9.sh --quick
	GLGEMM_BIN=$(abspath $(BIN)) tests/web/run.sh $(BUILD)
	$(MAKE) --no-print-directory man-check
	python3 tests/docs_check.py $(abspath $(BIN)) && tests/docs_examples.sh $(BUILD) $(BIN)

# A device experiment (docs/notes/feed.md): texelFetch against SSBO reads;
# check builds it and runs it small on llvmpipe (the sums must agree).
$(BUILD)/mixfetch: tests/device/mixfetch.c base/clock.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -I. -o $@ $^ -lEGL -lOpenGL -lm

# The kill -9 soak (tests/soak/kill9.sh): 50 kills of a tune and 50 of a
# library program, each checked; check runs its --quick form (5 and 5).
soak: all
	tests/soak/kill9.sh $(SOAK_ARGS)

# ASan + UBSan build of the same suite, in its own build folder.  Leaks inside
# the GL driver (Mesa, LLVM) are not ours: tests/lsan.supp names them.
# intercept_tls_get_addr=0: GCC 12's libasan takes a dynamic TLS block that
# malloc put 16 bytes into a page (1 in 256 of the 24-byte blocks libLLVM's
# TLS gets in each process that compiles a shader) for a glibc 2.19 header
# and records a range that is not memory; LeakSanitizer's tracer then dies
# scanning it ("Tracer caught signal 11"), now and then a gl case failed.
# Off, only the dlopen'd libraries' (the GL driver's) dynamic TLS goes
# unscanned: tests/SANITIZE.md, tests/sanitize/dtls-repro.sh.
SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN_ENV = GLGEMM_BIN=$(abspath build-san/glgemm) \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0:intercept_tls_get_addr=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Cases tagged forkthreads fork evaluation workers from several threads at
# once (--devices, the pool, MPI's rank 0); under GCC 12's ASan such a worker
# now and then waits forever in the allocator's lock, which another thread
# held at the fork (its fork does not take it): not run under ASan.  They run
# in check: tests/SANITIZE.md.
SAN_SKIP_TAGS = forkthreads
sanitize: deps
	$(MAKE) BUILD=build-san BIN=build-san/glgemm OPT=-O1 \
		SAN="$(SAN_FLAGS)" test-bin
	tests/web/deps.sh
	$(MAKE) --no-print-directory web >/dev/null
	$(SAN_ENV) CK_DEFAULT_TIMEOUT=600 CK_EXCLUDE_TAGS="$(SAN_SKIP_TAGS)" $(XVFB) build-san/check_glgemm

# CI's share of it (.ci/run): the same build on every suite of
# tests/suites.h's one list, in three runs: the cases that need no GL context
# (tags gl, glfw, slow left out), the "pure" ones (pack's grid) in one
# process instead of a fork and a leak check each, and the "gl" cases, with
# the leak checker since intercept_tls_get_addr=0 keeps its tracer alive
# (tests/SANITIZE.md; about 15 s more than without).  About 3.5 minutes on
# two cores after the build.  `make sanitize` stays the full run.
SAN_CI_TAGS = gl glfw slow $(SAN_SKIP_TAGS)
sanitize-ci: deps
	$(MAKE) BUILD=build-san BIN=build-san/glgemm OPT=-O1 \
		SAN="$(SAN_FLAGS)" test-bin
	$(SAN_ENV) CK_EXCLUDE_TAGS="$(SAN_CI_TAGS) pure" build-san/check_glgemm
	$(SAN_ENV) CK_FORK=no CK_INCLUDE_TAGS=pure CK_EXCLUDE_TAGS="$(SAN_CI_TAGS)" \
		build-san/check_glgemm
	$(SAN_ENV) CK_INCLUDE_TAGS=gl CK_EXCLUDE_TAGS="glfw slow $(SAN_SKIP_TAGS)" build-san/check_glgemm

# ThreadSanitizer on the library's threaded tests, in its own build folder:
# the concurrency suite (tests/check_concurrency.c), check_lib's
# two-thread and streamed cases and check_split's calls over two devices
# (a thread each), each in a forked process; any race report fails the run.
# Races inside the GL driver (Mesa's llvmpipe, its LLVM) are not ours:
# tests/tsan.supp names those modules and says why.  On the 2-core llvmpipe
# machine: the build about 40 s, the run 15 to 35 s (green in 10 runs of 10).
# Part of CI (.ci/run), not of check.
TSAN_ENV = TSAN_OPTIONS=suppressions=$(abspath tests/tsan.supp):halt_on_error=0:print_suppressions=0 \
	GLGEMM_BIN=$(abspath build-tsan/glgemm)
tsan: deps
	$(MAKE) BUILD=build-tsan BIN=build-tsan/glgemm OPT=-O1 SAN=-fsanitize=thread build-tsan/check_glgemm
	$(TSAN_ENV) CK_RUN_SUITE=concurrency build-tsan/check_glgemm
	$(TSAN_ENV) CK_RUN_SUITE=lib CK_RUN_CASE=lib_threads build-tsan/check_glgemm
	$(TSAN_ENV) CK_RUN_SUITE=lib CK_RUN_CASE=lib_stream build-tsan/check_glgemm
	$(TSAN_ENV) CK_RUN_SUITE=split CK_RUN_CASE=split_gl build-tsan/check_glgemm

# libFuzzer targets (clang), one per parser of outside input: tests/fuzz/.
# fuzz-smoke (part of check) runs each for FUZZ_SMOKE seconds; `make fuzz` is
# the longer campaign, FUZZ_SECONDS per target.  Crashes are saved in
# tests/fuzz/crashes/ and fail the run (tests/fuzz/run.sh).
FUZZ_CC      ?= clang
FUZZ_TARGETS  = variant npy csv records cli best crossover progcache env probe
FUZZ_SECONDS ?= 300
FUZZ_SMOKE   ?= 2
FUZZ_SAN = -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
$(BUILD)/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/libglgemm-core.a
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(filter %.a,$^) $(ALL_LDFLAGS) $(LDLIBS)
$(BUILD)/fuzz_cli: $(BUILD)/cli/options.o
.SECONDARY: $(FUZZ_SRC:%.c=$(BUILD)/%.o)
fuzz-bin:
	$(MAKE) BUILD=build-fuzz CC=$(FUZZ_CC) OPT=-O1 SAN="$(FUZZ_SAN)" \
		$(FUZZ_TARGETS:%=build-fuzz/fuzz_%)
fuzz-smoke: fuzz-bin
	tests/fuzz/run.sh $(FUZZ_SMOKE) $(FUZZ_TARGETS)
fuzz: deps fuzz-bin
	tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The host under valgrind memcheck on small problems (needs valgrind; not
# part of check): tests/valgrind.sh, suppressions in tests/valgrind.supp.
valgrind: $(BIN)
	tests/valgrind.sh ./$(BIN)

# The main job: tune the default device and write results/<card>/.  On a
# GPU, the paper's problem (1024^3, 10 reps, phase search).  On a software
# renderer (llvmpipe: no GPU) that takes hours on 2 cores, so 256^3 with 3
# reps and the 2 best outer combinations of the screening: about 5 minutes
# on the 2-core machine.  A second `make run` resumes from the records.
# Then `glgemm report` for the same problem (dense np sweep, bench, probe,
# report.md and figures; the tune's printed summary is kept beside the
# records as tune-<problem>-summary.txt, for the report's search cost), and
# `make shaders`, so that shaders/ holds the new best (the suite checks
# that shaders/ is what the generator writes for results/).
SOFT_RENDERERS = llvmpipe|softpipe|swrast|lavapipe
TUNE_AND_REPORT = sum=$$(mktemp) && { ./$(BIN) tune $(1) >$$sum || { rc=$$?; cat $$sum; rm -f $$sum; exit $$rc; }; } && \
	cat $$sum && chmod 644 $$sum && mv $$sum results/$$slug/tune-$(2)-summary.txt && ./$(BIN) report $(3)
run: deps
	$(MAKE) $(BIN)
	@info=$$(./$(BIN) info) || exit $$?; echo "$$info"; \
	slug=$$(echo "$$info" | sed -n 's/^slug: //p'); \
	if echo "$$info" | grep -Eq '^renderer: .*($(SOFT_RENDERERS))'; then \
	  echo "make run: software renderer, no GPU: tuning 256x256x256 (3 reps, --keep 2) so that"; \
	  echo "make run: this run stays under ten minutes on 2 cores; the paper's 1024^3 takes hours"; \
	  echo "make run: here (./$(BIN) tune --size 1024 runs it)"; \
	  set -x; $(call TUNE_AND_REPORT,--size 256 --reps 3 --keep 2,256x256x256,--size 256 --reps 3); \
	else \
	  echo "make run: GPU: tuning the paper's problem, 1024x1024x1024"; \
	  set -x; $(call TUNE_AND_REPORT,--size 1024,1024x1024x1024,--size 1024); \
	fi
	$(MAKE) shaders

shaders: $(BIN)
	./$(BIN) gen --write-shaders shaders

# Installs the Debian packages that are missing: one apt-get update, then one
# install; nothing at all when everything is present.
deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "error: packages missing and not root; run as root or install:$$missing" >&2; exit 2; fi; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi

# make install PREFIX=DIR: the header, both libraries, glgemm.pc, the
# binary, and the tuning records' best files (the library reads them from
# PREFIX/share/glgemm/results).  DESTDIR stages, as usual.
DEST = $(DESTDIR)$(PREFIX)
install: all
	install -d $(DEST)/bin $(DEST)/include $(DEST)/lib/pkgconfig $(DEST)/share/glgemm/results
	install -m 755 $(BIN) $(DEST)/bin/glgemm
	install -m 644 glgemm.h $(DEST)/include/glgemm.h
	install -m 644 $(LIB_A) $(DEST)/lib/libglgemm.a
	install -m 755 $(LIB_SO) $(DEST)/lib/libglgemm.so.$(VERSION)
	ln -sf libglgemm.so.$(VERSION) $(DEST)/lib/libglgemm.so.0
	ln -sf libglgemm.so.0 $(DEST)/lib/libglgemm.so
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: glgemm' 'Description: graphics-era GEMM: tuned fragment shaders on OpenGL' \
	  'Version: $(VERSION)' 'Requires.private: $(PKG_LIBS)' 'Cflags: -I$${includedir}' \
	  'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lglgemm' 'Libs.private: -lm -lpthread' \
	  > $(DEST)/lib/pkgconfig/glgemm.pc
	for f in results/*/best-*.txt results/*/crossover.txt; do [ -f "$$f" ] || continue; \
	  install -D -m 644 "$$f" "$(DEST)/share/glgemm/$$f"; done

uninstall:
	rm -f $(DEST)/bin/glgemm $(DEST)/include/glgemm.h $(DEST)/lib/libglgemm.a \
	  $(DEST)/lib/libglgemm.so.$(VERSION) $(DEST)/lib/libglgemm.so.0 $(DEST)/lib/libglgemm.so \
	  $(DEST)/lib/pkgconfig/glgemm.pc
	rm -rf $(DEST)/share/glgemm

# The drop-in BLAS (lib/blas.c; docs/library.md, "The drop-in BLAS"): libglgemm_blas.so
# defines sgemm_ and cblas_sgemm over the core objects, for LD_PRELOAD into
# unmodified programs.  lib/blas.c is not in LIB_SRC, so ./glgemm and
# libglgemm.so define no BLAS symbol.  `make blas` builds it, `make install`
# installs it with glgemm_blas.pc, tests/blas/run.sh (part of check) tests it.
BLAS_SRC := lib/blas.c
BLAS_OBJ := $(BLAS_SRC:%.c=$(BUILD)/%.o)
BLAS_SO  := $(BUILD)/libglgemm_blas.so
DEPS     += $(BLAS_OBJ:.o=.d)
PACKAGES += libblas-test libblas3 python3-numpy liblapack-test
.PHONY: blas install-blas uninstall-blas
all: $(BLAS_SO)
blas: $(BLAS_SO)
$(BLAS_SO): $(BLAS_OBJ) $(LIB_OBJ)
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,libglgemm_blas.so.0 -o $@ $(BLAS_OBJ) $(LIB_OBJ) \
	  $(ALL_LDFLAGS) $(LDLIBS)
install: install-blas
install-blas: $(BLAS_SO)
	install -d $(DEST)/lib/pkgconfig
	install -m 755 $(BLAS_SO) $(DEST)/lib/libglgemm_blas.so.$(VERSION)
	ln -sf libglgemm_blas.so.$(VERSION) $(DEST)/lib/libglgemm_blas.so.0
	ln -sf libglgemm_blas.so.0 $(DEST)/lib/libglgemm_blas.so
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' \
	  'preload=$${libdir}/libglgemm_blas.so.0' '' \
	  'Name: glgemm_blas' 'Description: drop-in BLAS: sgemm_ and cblas_sgemm on glgemm (LD_PRELOAD=$${preload})' \
	  'Version: $(VERSION)' 'Requires.private: $(PKG_LIBS)' \
	  'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lglgemm_blas' 'Libs.private: -lm -lpthread' \
	  > $(DEST)/lib/pkgconfig/glgemm_blas.pc
uninstall: uninstall-blas
uninstall-blas:
	rm -f $(DEST)/lib/libglgemm_blas.so.$(VERSION) $(DEST)/lib/libglgemm_blas.so.0 \
	  $(DEST)/lib/libglgemm_blas.so $(DEST)/lib/pkgconfig/glgemm_blas.pc

# The browser (issue 29; web/): gen/ compiled to WebAssembly (every file
# of gen/ and the exports of web/wasm/gen_wasm.c) beside the WebGL2 runtime
# web/src/glgemm.js, in web/dist/: one generator for both worlds.  clang's
# wasm32-wasi target with Debian's wasi-libc (a reactor: no main).
# `glgemm export` copies these two files (from <binary's folder>/web/dist,
# PREFIX/share/glgemm/web once installed, or $$GLGEMM_WEB_DIR).
WASM_CC    ?= clang
WEB_DIST   ?= web/dist
WASM_FLAGS  = --target=wasm32-wasi -std=c11 -O2 -Wall -Wextra -Werror -mexec-model=reactor -I. \
	-Wl,--strip-all
# `make web` also installs what the browser backend's worker and the tests
# import: node, npm and web/node_modules as web/package-lock.json pins it
# (tests/web/deps.sh --npm: nothing when they are there).
# The exported folder is an npm package: glgemm-tfjs.js, the two modules'
# declarations and package.json (web/pkg/) go beside glgemm.js, and
# `glgemm export --js DIR` copies them all.
WEB_PKG = $(WEB_DIST)/glgemm-tfjs.js $(WEB_DIST)/glgemm.d.ts $(WEB_DIST)/glgemm-tfjs.d.ts $(WEB_DIST)/package.json
web: web-npm $(WEB_DIST)/glgemm-gen.wasm $(WEB_DIST)/glgemm.js $(WEB_PKG)
web-npm:
	@tests/web/deps.sh --npm
.PHONY: web web-npm
$(WEB_DIST)/glgemm-gen.wasm: $(wildcard gen/*.c gen/*.h) web/wasm/gen_wasm.c
	@mkdir -p $(WEB_DIST)
	$(WASM_CC) $(WASM_FLAGS) -o $@.tmp $(sort $(wildcard gen/*.c)) web/wasm/gen_wasm.c && mv -f $@.tmp $@
# The runtime is cut by job in web/src/ and joined here into one module:
# glgemm.js (the runner, matmul), then portfolio.js (the portfolio race).
# web/src/ in the order the one module needs them: the binding and init,
# the Runner and its parts (methods added to its prototype), matmul, the race.
WEB_SRC = web/src/glgemm.js web/src/binding.js web/src/runner.js web/src/glstate.js web/src/programs.js \
	web/src/inputs.js web/src/targets.js web/src/passes.js web/src/wide.js web/src/textures.js web/src/matmul.js web/src/portfolio.js
$(WEB_DIST)/glgemm.js: $(WEB_SRC)
	@mkdir -p $(WEB_DIST)
	cat $(WEB_SRC) > $@.tmp && mv -f $@.tmp $@
# glgemm-tfjs.js: TensorFlow.js's matrix kernels through glgemm (issue 39),
# a module of its own that imports ./glgemm.js.
$(WEB_DIST)/glgemm-tfjs.js: web/src/tfjs.js
	@mkdir -p $(WEB_DIST)
	cp web/src/tfjs.js $@.tmp && mv -f $@.tmp $@
$(WEB_DIST)/%.d.ts: web/pkg/%.d.ts
	@mkdir -p $(WEB_DIST)
	cp $< $@
$(WEB_DIST)/package.json: web/pkg/package.json
	@mkdir -p $(WEB_DIST)
	cp $< $@
# The example page (web/example/): exports best (a default variant when
# this card has no WebGL2 record) into a temporary folder and serves it
# with TensorFlow.js beside it; prints the URL.
web-example: $(BIN) web
	tests/web/deps.sh
	GLGEMM_WEB_DIR=$(abspath $(WEB_DIST)) node web/serve.mjs --example --bin $(abspath $(BIN))
install: install-web
install-web: web
	install -d $(DEST)/share/glgemm/web
	install -m 644 $(WEB_DIST)/glgemm.js $(WEB_DIST)/glgemm-gen.wasm $(WEB_PKG) $(DEST)/share/glgemm/web/
.PHONY: install-web

# The manual pages, glgemm(1) and glgemm(3): mdoc written by hand in
# docs/man/ (no build tool; groff formats them).  `make man` copies them to
# $(BUILD)/man/ (man -M $(BUILD)/man glgemm); `make man-check` (part of
# check) formats both with groff -ww and fails on any warning; install puts
# them under PREFIX/share/man, with a glgemm_*.3 link for each function.
PACKAGES += groff-base
MAN_PAGES := docs/man/glgemm.1 docs/man/glgemm.3
MAN_LINKS = $(shell sed -n 's/^\.Nm \(glgemm_[a-z_]*\).*/\1/p' docs/man/glgemm.3)
.PHONY: man man-check install-man uninstall-man
man: $(MAN_PAGES)
	install -d $(BUILD)/man/man1 $(BUILD)/man/man3
	install -m 644 docs/man/glgemm.1 $(BUILD)/man/man1/glgemm.1
	install -m 644 docs/man/glgemm.3 $(BUILD)/man/man3/glgemm.3
man-check:
	@for p in $(MAN_PAGES); do \
	  w=$$( { groff -ww -z -mdoc $$p; groff -ww -mdoc -Tascii $$p >/dev/null; } 2>&1 ); \
	  if [ -n "$$w" ]; then echo "$$p: groff warnings:" >&2; echo "$$w" >&2; exit 1; fi; \
	done; echo "man-check: $(MAN_PAGES): no groff warnings"
install: install-man
install-man:
	install -d $(DEST)/share/man/man1 $(DEST)/share/man/man3
	install -m 644 docs/man/glgemm.1 $(DEST)/share/man/man1/glgemm.1
	install -m 644 docs/man/glgemm.3 $(DEST)/share/man/man3/glgemm.3
	for f in $(MAN_LINKS); do ln -sf glgemm.3 $(DEST)/share/man/man3/$$f.3; done
uninstall: uninstall-man
uninstall-man:
	rm -f $(DEST)/share/man/man1/glgemm.1 $(DEST)/share/man/man3/glgemm.3
	for f in $(MAN_LINKS); do rm -f $(DEST)/share/man/man3/$$f.3; done

# glgemm-mpi (issue 32; docs/cluster.md): the same program with the device
# pool's MPI transport (eval/mpi.c, Open MPI from Debian): rank 0 searches
# and writes the records, every rank serves its devices.  Optional: `all`
# and the library never need MPI; `make check` builds it and runs it under
# mpirun -np 2 (the devices suite).  cli/main.c is compiled again with
# GLGEMM_MPI (its main starts MPI); Open MPI's headers as system headers.
PACKAGES += openmpi-bin libopenmpi-dev
MPI_BIN  ?= glgemm-mpi
MPI_CFLAGS = $(patsubst -I%,-isystem %,$(shell mpicc --showme:compile 2>/dev/null))
MPI_LDLIBS = $(shell mpicc --showme:link 2>/dev/null)
MPI_OBJ  := $(BUILD)/mpi/cli/main.o $(MPI_SRC:%.c=$(BUILD)/mpi/%.o)
DEPS     += $(MPI_OBJ:.o=.d)
.PHONY: mpi mpi-tools
mpi: mpi-tools $(MPI_BIN)
mpi-tools:
	@command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 || \
	  { echo "make: mpicc or mpirun is missing: run 'make deps' as root (openmpi-bin libopenmpi-dev)" >&2; exit 2; }
$(BUILD)/mpi/%.o: %.c $(BUILD)/cflags.txt
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(MPI_CFLAGS) -DGLGEMM_MPI -MMD -MP -c -o $@ $<
$(MPI_BIN): $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJ)) $(MPI_OBJ) $(BUILD)/libglgemm-core.a
	$(CC) $(ALL_CFLAGS) -o $@ $(filter %.o,$^) $(BUILD)/libglgemm-core.a $(ALL_LDFLAGS) $(MPI_LDLIBS) $(LDLIBS)

clean:
	rm -rf build build-san build-fuzz build-tsan $(BIN) $(MPI_BIN) $(WEB_DIST)

-include $(DEPS)
