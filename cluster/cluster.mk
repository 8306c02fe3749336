# The cluster module (cluster/): global limits through Redis, included by
# the top Makefile before the front ends, which link it.  Builds
# build/libioqos-cluster.a (position-independent, for the nbdkit filter
# too) and build/libioqos-cluster-san.a; needs libhiredis-dev, and its
# tests need redis-server (scripts/deps.sh cluster installs both as root).
CLUSTER_SRC   := $(sort $(wildcard cluster/*.c))
CLUSTER_HDR   := $(wildcard cluster/*.h) include/ioqos.h $(B)/cluster/lease_lua.h
CLUSTER_OBJ   := $(CLUSTER_SRC:cluster/%.c=$(B)/cluster/%.o)
CLUSTER_SOBJ  := $(CLUSTER_SRC:cluster/%.c=$(B)/cluster/san/%.o)
CLUSTER_LIB   := $(B)/libioqos-cluster.a
CLUSTER_SANLIB := $(B)/libioqos-cluster-san.a
CLUSTER_LIBS  := -lhiredis -pthread
CLUSTER_CFLAGS := -Icluster -I$(B)/cluster -pthread
CLUSTER_TEST_SRC := $(sort $(wildcard test/cluster/t_*.c))
CLUSTER_TESTS := $(CLUSTER_TEST_SRC:test/cluster/%.c=$(B)/test/cluster/%)

# the lease script, as a C string literal
$(B)/cluster/lease_lua.h: cluster/lease.lua
	@mkdir -p $(@D)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@

$(B)/cluster/%.o: cluster/%.c $(CLUSTER_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CLUSTER_CFLAGS) -fPIC -c -o $@ $<

$(B)/cluster/san/%.o: cluster/%.c $(CLUSTER_HDR)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude $(CLUSTER_CFLAGS) -c -o $@ $<

$(CLUSTER_LIB): $(CLUSTER_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(CLUSTER_SANLIB): $(CLUSTER_SOBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/test/cluster/%: test/cluster/%.c $(CLUSTER_SANLIB) $(SANLIB) $(wildcard test/cluster/*.h) \
                    $(TEST_HDR)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(SANFLAGS) -Iinclude $(CLUSTER_CFLAGS) -Itest -Itest/cluster \
	  -o $@ $< $(CLUSTER_SANLIB) $(SANLIB) $(CLUSTER_LIBS) -lm

# the fuzz harness of global= links the module (the generic fuzz rule
# links the library alone), its objects compiled for the fuzzers as the
# library's are (FUZZ_LIB_OBJ)
CLUSTER_FUZZ_OBJ := $(CLUSTER_SRC:cluster/%.c=$(B)/fuzz/cluster/%.o)
$(B)/fuzz/cluster/%.o: cluster/%.c $(CLUSTER_HDR)
	@mkdir -p $(@D)
	$(FUZZCC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -Iinclude $(CLUSTER_CFLAGS) -c -o $@ $<

$(B)/fuzz/fuzz_cluster_conf: fuzz/fuzz_cluster_conf.c $(CLUSTER_FUZZ_OBJ) $(CLUSTER_HDR) \
		fuzz/fuzz.h $(FUZZ_LIB_OBJ) $(LIB_HDR)
	@mkdir -p $(@D)
	$(FUZZCC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Iinclude -Isrc $(CLUSTER_CFLAGS) -o $@ $< \
	  $(CLUSTER_FUZZ_OBJ) $(FUZZ_LIB_OBJ) $(CLUSTER_LIBS)

.PHONY: cluster cluster-deps cluster-check-build cluster-tests cluster-bench
cluster: $(CLUSTER_LIB)

# (a recipe, so that make has nothing to say when they are made)
cluster-tests: $(CLUSTER_TESTS)
	@:

cluster-deps:
	@sh scripts/deps.sh cluster || echo "cluster tests will be skipped"

# after the packages are in, a fresh make sees the headers; without them
# each test is a stub that says why it is skipped
cluster-check-build: cluster-deps $(SANLIB)
	@if [ -e /usr/include/hiredis/hiredis.h ]; then \
	  $(MAKE) --no-print-directory cluster-tests; \
	else \
	  mkdir -p $(B)/test/cluster; \
	  for t in $(CLUSTER_TESTS); do \
	    printf '#!/bin/sh\necho "skipped: libhiredis-dev is not installed"\nexit 77\n' > $$t; \
	    chmod +x $$t; \
	  done; \
	fi

# three nbdkit servers, one tenant: totals, overshoot, round trips (never in check)
cluster-bench: cluster-check-build nbdkit-check-build
	@sh bench/cluster.sh

CHECK_DEPS  += cluster-check-build
# with the headers there when make starts (./check installs them first),
# check-build builds the tests too, so that check's recursive make finds
# them made
ifneq ($(wildcard /usr/include/hiredis/hiredis.h),)
CHECK_BUILD += $(CLUSTER_LIB) $(CLUSTER_SANLIB) $(CLUSTER_TESTS)
endif
CHECK_EXTRA += $(CLUSTER_TESTS)
# instances sharing a global rate, to 2% over a second or two of the real
# clock: alone on the machine
CHECK_ALONE += $(B)/test/cluster/t_cluster_share $(B)/test/cluster/t_cluster_fault \
               $(B)/test/cluster/t_cluster_broken
