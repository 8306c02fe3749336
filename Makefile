# ioqos — plain GNU make.  `make` builds the library, the `ioqos` command
# and the nbdkit filter (each front end only when its build dependencies are
# there: it says which are missing), `make check` runs the tests under
# ASan + UBSan, `make fuzz` the fuzzers, `make bench` the benchmarks, and
# `make install PREFIX=... DESTDIR=...` installs what was built.

VERSION     := 0.1.0
SOMAJOR     := 0
PREFIX      ?= /usr/local
# Debian and its derivatives keep libraries in a multiarch directory
# (lib/x86_64-linux-gnu), which their ld.so and pkg-config search first,
# under /usr/local as under /usr; elsewhere LIBDIR is PREFIX/lib
ifeq ($(origin MULTIARCH),undefined)
MULTIARCH   := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || \
                 $(CC) -print-multiarch 2>/dev/null)
endif
LIBDIR      ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
INCLUDEDIR  ?= $(PREFIX)/include
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
DESTDIR     ?=

CC          ?= cc
FUZZCC      ?= clang
B           := build

WARN        := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
               -Wpointer-arith -Wno-unused-parameter
ifneq ($(CI),)
WERROR      ?= 1
endif
ifeq ($(WERROR),1)
WARN        += -Werror
endif
CSTD        := -std=c11 -D_GNU_SOURCE
CFLAGS      ?= -O2 -g
ALL_CFLAGS  := $(CSTD) $(WARN) $(CPPFLAGS) $(CFLAGS) -Iinclude -Isrc
SANFLAGS    := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
               -fno-sanitize-recover=all
LDLIBS      ?=

LIB_SRC     := $(sort $(wildcard src/*.c src/parse/*.c))
LIB_OBJ     := $(LIB_SRC:src/%.c=$(B)/lib/%.o)
SAN_OBJ     := $(LIB_SRC:src/%.c=$(B)/san/%.o)
LIB_HDR     := include/ioqos.h $(wildcard src/*.h src/parse/*.h)

TEST_SRC    := $(sort $(wildcard test/t_*.c))
TEST_BIN    := $(TEST_SRC:test/%.c=$(B)/test/%)
TEST_HDR    := $(wildcard test/*.h)
BENCH_SRC   := $(sort $(wildcard bench/*.c))
BENCH_BIN   := $(BENCH_SRC:bench/%.c=$(B)/bench/%)
FUZZ_SRC    := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BIN    := $(FUZZ_SRC:fuzz/%.c=$(B)/fuzz/%)
# the fuzzers' sanitizers; their objects are compiled once, with the
# fuzzer's coverage but not its main() (fuzzer-no-link), and each harness
# links the ones it needs: the library's here, the front ends' in their .mk
FUZZ_CFLAGS := $(CSTD) -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_LIB_OBJ := $(LIB_SRC:src/%.c=$(B)/fuzz/lib/%.o)
EX_SRC      := $(sort $(wildcard examples/*.c))
EX_BIN      := $(EX_SRC:examples/%.c=$(B)/examples/%)

SHLIB       := $(B)/libioqos.so.$(VERSION)
STLIB       := $(B)/libioqos.a
SANLIB      := $(B)/libioqos-san.a

# man pages: ioqos.3 and one name per function, each a link to it
MAN3_LINKS  := $(filter-out man/ioqos.3,$(sort $(wildcard man/*.3)))

# yes when every header in $(1) can be included (a front end's build deps)
have_headers = $(shell printf '$(foreach h,$(1),\043include <$(h)>\n)' | \
                 $(CC) $(CSTD) $(CPPFLAGS) -E -x c - >/dev/null 2>&1 && echo yes)

# front ends add their own rules (and may add to CHECK_DEPS, CHECK_EXTRA,
# and to the prerequisites of all, install and uninstall)
CHECK_DEPS  :=
CHECK_EXTRA :=
CHECK_BUILD :=
# the tests run CHECK_JOBS at a time (twice the cores: many of them wait
# on the clock, a server or the disk more than they compute), each made to
# pass whatever else shares the machine, those in CHECK_FIRST (the longest)
# started first; those in CHECK_ALONE, which measure rates against the
# real clock that the load of others would change, then run one at a time
CHECK_ALONE :=
# the package build compiles the tree anew, with the packages' flags;
# depth=auto's cases in virtual time
CHECK_FIRST := test/pkg/t_deb.sh $(B)/test/t_depth_auto
CHECK_JOBS  ?= $(shell echo $$((2 * $$(nproc 2>/dev/null || echo 1))))
-include cluster/cluster.mk
-include tools/ioqos/ioqos.mk
-include nbdkit/nbdkit.mk

# the packaging tests (test/pkg/): make install into a scratch root, and
# the Debian packages built from debian/
PKG_TESTS   := $(sort $(wildcard test/pkg/t_*.sh))
CHECK_DEPS  += pkg-deps lib fuzz-check-build
CHECK_EXTRA += $(PKG_TESTS) test/t_layers.sh
# the tests of threads (test/t_mt_threads.c) run a second time built whole,
# the library with them, under ThreadSanitizer, which fails them on a race
TSAN_TEST_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
TSAN_TEST_OBJ := $(LIB_SRC:src/%.c=$(B)/tsan/%.o)
TSAN_TEST_BIN := $(B)/test/t_mt_threads-tsan
CHECK_DEPS  += $(TSAN_TEST_BIN)
CHECK_EXTRA += $(TSAN_TEST_BIN)
CHECK_BUILD += $(TSAN_TEST_BIN)
# what check builds, which `./check` builds first on every core (make -j),
# so that check itself builds nothing: the objects, libraries and programs
# that the recursive makes of cluster-check-build and nbdkit-check-build
# link and must not build at the same time as this make (the front ends
# add their tests and the filter when their headers are there)
CHECK_BUILD += lib $(TEST_BIN) fuzz-check-build
.DEFAULT_GOAL := all

.PHONY: all lib check check-build check-long test-bins fuzz fuzz-build bench examples run replay install \
        uninstall clean deps pkg-deps
all: lib examples

lib: $(STLIB) $(SHLIB) $(B)/ioqos.pc

$(B)/lib/%.o: src/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -c -o $@ $<

$(B)/san/%.o: src/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude -Isrc -c -o $@ $<

$(STLIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(SANLIB): $(SAN_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(SHLIB): $(LIB_OBJ) src/libioqos.map
	$(CC) -shared -Wl,-soname,libioqos.so.$(SOMAJOR) \
	  -Wl,--version-script=src/libioqos.map -o $@ $(LIB_OBJ) $(LDFLAGS)
	ln -sf libioqos.so.$(VERSION) $(B)/libioqos.so.$(SOMAJOR)
	ln -sf libioqos.so.$(SOMAJOR) $(B)/libioqos.so

# the .pc file names libdir and includedir under ${prefix} where they are
PC_DIR      = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
PC_SED      = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(call PC_DIR,$(LIBDIR))|' \
                -e 's|@INCLUDEDIR@|$(call PC_DIR,$(INCLUDEDIR))|' -e 's|@VERSION@|$(VERSION)|'

$(B)/ioqos.pc: ioqos.pc.in Makefile
	@mkdir -p $(@D)
	$(PC_SED) $< > $@

# tests: one program per feature, built with the sanitizers
$(B)/test/%: test/%.c $(SANLIB) $(TEST_HDR) $(FUZZ_SRC)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude -Isrc -Itest -o $@ $< $(SANLIB) \
	  $(TEST_LDFLAGS_$*) -lm
# t_conf_life makes the library's allocations fail on demand: its own
# malloc, calloc and realloc stand in for the library's (and call the real ones)
TEST_LDFLAGS_t_conf_life := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc

$(B)/tsan/%.o: src/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(TSAN_TEST_FLAGS) -Iinclude -Isrc -c -o $@ $<

$(B)/test/%-tsan: test/%.c $(TSAN_TEST_OBJ) $(TEST_HDR)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(TSAN_TEST_FLAGS) -Iinclude -Isrc -Itest -o $@ $< \
	  $(TSAN_TEST_OBJ) -lpthread -lm

test-bins: $(TEST_BIN)

check: deps $(TEST_BIN) $(CHECK_DEPS)
	@sh test/run-tests.sh -j $(CHECK_JOBS) -f "$(CHECK_FIRST)" -a "$(CHECK_ALONE)" $(TEST_BIN) $(CHECK_EXTRA)

check-build: $(CHECK_BUILD)

# the sweeps over many seeds that check runs a few of: depth=auto and the
# latency targets on the test devices (IOQOS_SEED=0..19) and depth=auto on
# the simulator's (SEEDS=20)
LONG_SEEDS ?= 20
check-long: deps $(B)/test/t_depth_auto $(B)/test/t_latency $(CHECK_DEPS)
	@fail=0; pass=0; for t in t_depth_auto t_latency; do s=0; while [ $$s -lt $(LONG_SEEDS) ]; do \
	  if IOQOS_SEED=$$s ./$(B)/test/$$t > $(B)/$$t.$$s.log 2>&1; \
	  then pass=$$((pass + 1)); \
	  else echo "FAIL $$t, IOQOS_SEED=$$s: $(B)/$$t.$$s.log"; fail=$$((fail + 1)); fi; \
	  s=$$((s + 1)); done; done; \
	echo "t_depth_auto, t_latency: $$pass seeds passed, $$fail failed"; \
	if SEEDS=$(LONG_SEEDS) sh test/cli/t_cli_depth_sim.sh; then pass=$$((pass + 1)); \
	else fail=$$((fail + 1)); fi; \
	echo "check-long: $$pass passed, $$fail failed"; \
	[ $$fail = 0 ]

# fuzzers: libFuzzer with ASan + UBSan (clang); `make fuzz` runs each one
FUZZ_SECONDS ?= 60
$(B)/fuzz/lib/%.o: src/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(FUZZCC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -Iinclude -Isrc -c -o $@ $<

$(B)/fuzz/%: fuzz/%.c $(FUZZ_LIB_OBJ) $(LIB_HDR)
	@mkdir -p $(@D)
	$(FUZZCC) $(FUZZ_CFLAGS) -fsanitize=fuzzer \
	  -Iinclude -Isrc -Itools/ioqos -o $@ $< $(FUZZ_LIB_OBJ)

fuzz-build: $(FUZZ_BIN)
	@:

# check builds every fuzzer, without running it, when clang and libFuzzer
# are there, so that a harness that no longer links fails check
.PHONY: fuzz-check-build
fuzz-check-build:
	@if printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' | \
	    $(FUZZCC) -fsanitize=fuzzer -x c -o /dev/null - >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory fuzz-build; \
	else \
	  echo "fuzzers: not built: $(FUZZCC) with libFuzzer not found (Debian: clang libclang-rt-14-dev)"; \
	fi

fuzz: $(FUZZ_BIN)
	@sh scripts/deps.sh fuzz
	@for f in $(FUZZ_BIN); do \
	  n=$$(basename $$f); mkdir -p $(B)/corpus/$$n; \
	  echo "== $$n: $(FUZZ_SECONDS) s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -detect_leaks=1 \
	    $(B)/corpus/$$n fuzz/corpus/$$n > $(B)/corpus/$$n.log 2>&1; \
	  rc=$$?; tail -n 3 $(B)/corpus/$$n.log; \
	  [ $$rc = 0 ] || { echo "$$n failed (exit $$rc): $(B)/corpus/$$n.log"; exit 1; }; \
	done

# benchmarks: optimised, never part of check
$(B)/bench/%: bench/%.c $(STLIB) $(wildcard bench/*.h)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Ibench -o $@ $< $(STLIB) -lpthread -lm

bench: $(BENCH_BIN)
	@for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

$(B)/examples/%: examples/%.c $(STLIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(STLIB) -lpthread -lm

examples: $(EX_BIN)

# the main job: the three historical experiments through `ioqos run` on a
# simulated device (ten virtual minutes each take well under a second),
# then the 2016 test for a few seconds on a real file of this machine
RUN_DEMO = \
	"2014 blk-throttle test C; the kernel measured 104k, 52.8k, 51.1k, 51.4k kB/s|examples/2014-hier-bc.fio|examples/2014-hier-c.qos|ssd" \
	"2016 SSD, prio 2:6, no controller (the deadline column: 202:202 MB/s)|examples/2016-qd8x8.fio|examples/depth-max.qos|ssd" \
	"2016 SSD, prio 2:6 under ioqos, no depth written; BFQ split 139:72 MB/s and lost a third|examples/2016-qd8x8.fio|-|ssd" \
	"2008 CFQ-cgroup, prio 0/4/7, 100 readers each, no depth written; CFQ gave 40/34/26%|examples/2008-prio-100.fio|-|hdd"
run: deps cli
	@for d in $(RUN_DEMO); do \
	  title=$${d%%|*}; rest=$${d#*|}; job=$${rest%%|*}; rest=$${rest#*|}; \
	  qos=$${rest%%|*}; dev=$${rest#*|}; \
	  [ "$$qos" = - ] && opt= || opt=" --qos $$qos"; \
	  echo "== $$title"; \
	  echo "   ioqos run $$job$$opt --device $$dev"; \
	  ./$(B)/ioqos run $$job$$opt --device $$dev | sed -n '/^ioqos groups/,$$p' || exit 1; \
	  echo; \
	done
	@sh tools/ioqos/run_real.sh

# the library alone: replay a tree of limited groups in virtual time
replay: deps $(B)/examples/replay
	./$(B)/examples/replay $(RUN_ARGS)

deps:
	@sh scripts/deps.sh check

pkg-deps:
	@sh scripts/deps.sh pkg && sh scripts/deps.sh deb || \
	  echo "packaging tests will be skipped"

# the library, its header, .pc file and man pages; the front ends add
# their own parts (tools/ioqos/ioqos.mk, nbdkit/nbdkit.mk)
install: lib
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) \
	  $(DESTDIR)$(MANDIR)/man3
	install -m 644 include/ioqos.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(STLIB) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(SHLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libioqos.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libioqos.so.$(SOMAJOR)
	ln -sf libioqos.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libioqos.so
	$(PC_SED) ioqos.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/ioqos.pc
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/ioqos.pc
	install -m 644 man/ioqos.3 $(DESTDIR)$(MANDIR)/man3/
	for m in $(notdir $(MAN3_LINKS)); do \
	  ln -sf ioqos.3 $(DESTDIR)$(MANDIR)/man3/$$m || exit 1; done

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/ioqos.h $(DESTDIR)$(LIBDIR)/libioqos.a \
	  $(DESTDIR)$(LIBDIR)/libioqos.so $(DESTDIR)$(LIBDIR)/libioqos.so.$(SOMAJOR) \
	  $(DESTDIR)$(LIBDIR)/libioqos.so.$(VERSION) \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/ioqos.pc $(DESTDIR)$(MANDIR)/man3/ioqos.3 \
	  $(MAN3_LINKS:man/%=$(DESTDIR)$(MANDIR)/man3/%)

clean:
	rm -rf $(B)
