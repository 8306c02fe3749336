# The ioqos command-line program (tools/ioqos/), included by the top
# Makefile before its rules.  Builds build/ioqos (optimised),
# build/ioqos-san (ASan + UBSan, used by the CLI tests) and build/ioqos-tsan
# (ThreadSanitizer, library included, for the tests of the psync engine's
# threads); needs liburing, json-c, hiredis (for --redis, through the
# cluster module), and OpenSSL's libcrypto and libxxhash (verify=).
# The sources lie in layers, one folder each, every file including only
# headers of its own folder or of one below it (scripts/check-layers.py
# checks it): lib/ (JSON, histograms, checksums; nothing of the command),
# job/ (job files, the command line, the options), sim/ (the simulated
# device), run/ (the event loop, streams, the kinds of I/O, files and
# buffers; the tables of hooks the features and engines fill), feat/ (the
# features of fio's options at run time), engines/, report/, and main.c at
# the top, which hands the run its features and engines.
# Headers are included by their path under tools/ioqos ("job/jobfile.h").
IOQOS_CLI_DIRS := lib job sim run engines feat report
IOQOS_CLI_SRC  := $(sort $(wildcard tools/ioqos/*.c \
                    $(IOQOS_CLI_DIRS:%=tools/ioqos/%/*.c)))
IOQOS_CLI_HDR  := $(wildcard $(IOQOS_CLI_DIRS:%=tools/ioqos/%/*.h)) \
                  include/ioqos.h cluster/ioqos_cluster.h
IOQOS_CLI_OBJ  := $(IOQOS_CLI_SRC:tools/ioqos/%.c=$(B)/tools/ioqos/%.o)
IOQOS_CLI_SOBJ := $(IOQOS_CLI_SRC:tools/ioqos/%.c=$(B)/tools/ioqos/san/%.o)
IOQOS_CLI_TOBJ := $(IOQOS_CLI_SRC:tools/ioqos/%.c=$(B)/tools/ioqos/tsan/%.o) \
                  $(LIB_SRC:src/%.c=$(B)/tools/ioqos/tsan/libioqos/%.o) \
                  $(CLUSTER_SRC:cluster/%.c=$(B)/tools/ioqos/tsan/cluster/%.o)
TSANFLAGS      := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
IOQOS_CLI_LIBS := -luring -ljson-c -lcrypto -lxxhash -lm -lpthread $(CLUSTER_LIBS)
IOQOS_CLI_TESTS := $(sort $(wildcard test/cli/t_*.sh))

$(B)/tools/ioqos/%.o: tools/ioqos/%.c $(IOQOS_CLI_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CLUSTER_CFLAGS) -Itools/ioqos -c -o $@ $<

$(B)/tools/ioqos/san/%.o: tools/ioqos/%.c $(IOQOS_CLI_HDR)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude -Isrc $(CLUSTER_CFLAGS) -Itools/ioqos -c -o $@ $<

$(B)/tools/ioqos/tsan/%.o: tools/ioqos/%.c $(IOQOS_CLI_HDR)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(TSANFLAGS) -Iinclude -Isrc $(CLUSTER_CFLAGS) -Itools/ioqos -c -o $@ $<

$(B)/tools/ioqos/tsan/libioqos/%.o: src/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(TSANFLAGS) -Iinclude -Isrc -c -o $@ $<

$(B)/tools/ioqos/tsan/cluster/%.o: cluster/%.c $(CLUSTER_HDR)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(TSANFLAGS) -Iinclude $(CLUSTER_CFLAGS) -c -o $@ $<

$(B)/ioqos: $(IOQOS_CLI_OBJ) $(CLUSTER_LIB) $(STLIB)
	$(CC) $(CFLAGS) -o $@ $(IOQOS_CLI_OBJ) $(CLUSTER_LIB) $(STLIB) $(IOQOS_CLI_LIBS) $(LDFLAGS)

$(B)/ioqos-san: $(IOQOS_CLI_SOBJ) $(CLUSTER_SANLIB) $(SANLIB)
	$(CC) $(SANFLAGS) -o $@ $(IOQOS_CLI_SOBJ) $(CLUSTER_SANLIB) $(SANLIB) $(IOQOS_CLI_LIBS) $(LDFLAGS)

$(B)/ioqos-tsan: $(IOQOS_CLI_TOBJ)
	$(CC) $(TSANFLAGS) -o $@ $(IOQOS_CLI_TOBJ) $(IOQOS_CLI_LIBS) $(LDFLAGS)

.PHONY: cli cli-deps cli-bench
cli-deps:
	@sh scripts/deps.sh cli

cli: cli-deps $(B)/ioqos

# the job-file fuzz harness links every source of the command but its
# main() (IOQOS_CLI_SRC, the list the command is built from, so a new file
# of the parser can never be left out of it), the cluster module and the
# library, all built by clang with the fuzzer's sanitizers
IOQOS_FUZZ_SRC := $(filter-out tools/ioqos/main.c,$(IOQOS_CLI_SRC))
IOQOS_FUZZ_OBJ := $(IOQOS_FUZZ_SRC:tools/ioqos/%.c=$(B)/fuzz/tools/ioqos/%.o)
$(B)/fuzz/tools/ioqos/%.o: tools/ioqos/%.c $(IOQOS_CLI_HDR)
	@mkdir -p $(@D)
	$(FUZZCC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link \
	  -Iinclude -Isrc $(CLUSTER_CFLAGS) -Itools/ioqos -c -o $@ $<

$(B)/fuzz/fuzz_jobfile: fuzz/fuzz_jobfile.c $(IOQOS_FUZZ_OBJ) $(IOQOS_CLI_HDR) \
		$(CLUSTER_FUZZ_OBJ) $(CLUSTER_HDR) $(FUZZ_LIB_OBJ) $(LIB_HDR)
	@mkdir -p $(@D)
	$(FUZZCC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Iinclude -Isrc $(CLUSTER_CFLAGS) -Itools/ioqos \
	  -o $@ $< $(IOQOS_FUZZ_OBJ) $(CLUSTER_FUZZ_OBJ) $(FUZZ_LIB_OBJ) $(IOQOS_CLI_LIBS)

# the iolog reader's harness includes the reader's sources (as the device
# file's does): a change to one of them builds it again
$(B)/fuzz/fuzz_iolog: tools/ioqos/job/replaylog.c tools/ioqos/job/replaylog.h \
		tools/ioqos/job/jobvalue.c tools/ioqos/job/jobread.c \
		tools/ioqos/job/jobmsg.c tools/ioqos/job/jobfile_int.h

# side-by-side benchmarks against fio (needs fio; never part of check)
cli-bench: $(B)/ioqos
	@sh scripts/deps.sh bench
	@for b in tools/ioqos/bench/cli_*.sh bench/cli_depth.sh; do echo "== $$b"; sh $$b || exit 1; done

CHECK_DEPS  += cli-deps $(B)/ioqos $(B)/ioqos-san $(B)/ioqos-tsan
CHECK_BUILD += $(B)/ioqos $(B)/ioqos-san $(B)/ioqos-tsan
CHECK_EXTRA += $(IOQOS_CLI_TESTS)
# three runs share a global limit to 2% over 4 s of the real clock: alone
CHECK_ALONE += test/cli/t_cli_redis.sh
# the longest: the simulator's sweep, then real files and their syncs
CHECK_FIRST += test/cli/t_cli_depth_sim.sh test/cli/t_cli_fsync.sh \
               test/cli/t_cli_iodepthlow.sh test/cli/t_cli_shortio.sh

# `make` builds the command when liburing, json-c and hiredis are there, and says
# what is missing otherwise; `make install` installs it with ioqos(1)
IOQOS_CLI_HAVE := $(call have_headers,liburing.h json-c/json.h hiredis/hiredis.h openssl/evp.h xxhash.h)
.PHONY: cli-build install-cli uninstall-cli
ifeq ($(IOQOS_CLI_HAVE),yes)
cli-build: $(B)/ioqos
install: install-cli
else
cli-build:
	@echo "ioqos command: not built: <liburing.h>, <json-c/json.h>, <hiredis/hiredis.h>, <openssl/evp.h> or <xxhash.h> not found (Debian: liburing-dev libjson-c-dev libhiredis-dev libssl-dev libxxhash-dev; as root: sh scripts/deps.sh cli)"
install: cli-build
endif
all: cli-build

install-cli: $(B)/ioqos
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(B)/ioqos $(DESTDIR)$(BINDIR)/
	install -m 644 man/ioqos.1 $(DESTDIR)$(MANDIR)/man1/

uninstall: uninstall-cli
uninstall-cli:
	rm -f $(DESTDIR)$(BINDIR)/ioqos $(DESTDIR)$(MANDIR)/man1/ioqos.1
