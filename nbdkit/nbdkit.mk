# The nbdkit filter (nbdkit/), included by the top Makefile before its rules.
# Builds build/nbdkit-ioqos-filter.so, with libioqos and the cluster module
# linked in, when the nbdkit filter headers and hiredis's (Debian:
# nbdkit-plugin-dev, libhiredis-dev) are there; `make check`
# installs them and nbdkit's clients through scripts/deps.sh (as root) and
# runs the filter tests under test/nbd/.
NBDKIT_SO     := $(B)/nbdkit-ioqos-filter.so
NBDKIT_SRC    := nbdkit/state.c nbdkit/ioqos.c nbdkit/params.c nbdkit/gate.c nbdkit/wake.c nbdkit/leave.c nbdkit/group.c nbdkit/cgroup.c nbdkit/allow.c nbdkit/reload.c nbdkit/files.c nbdkit/logstr.c nbdkit/stats.c nbdkit/expo.c nbdkit/poll.c
NBDKIT_HDR    := nbdkit/filter.h cluster/ioqos_cluster.h
NBDKIT_TESTS  := $(sort $(wildcard test/nbd/t_*.sh))
NBDKIT_HAVE   := $(call have_headers,nbdkit-filter.h hiredis/hiredis.h)

NBDKIT_OBJ    := $(NBDKIT_SRC:nbdkit/%.c=$(B)/nbdkit/%.o)

$(B)/nbdkit/%.o: nbdkit/%.c $(NBDKIT_HDR) include/ioqos.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CLUSTER_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

# the filter is a plugin of nbdkit: position-independent, one exported symbol
$(NBDKIT_SO): $(NBDKIT_OBJ) nbdkit/filter.map $(STLIB) $(CLUSTER_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -shared \
	  -Wl,--version-script=nbdkit/filter.map -o $@ $(NBDKIT_OBJ) $(CLUSTER_LIB) $(STLIB) \
	  $(CLUSTER_LIBS) $(LDFLAGS)

.PHONY: nbdkit-filter nbdkit-deps nbdkit-check-build nbdkit-bench
ifeq ($(NBDKIT_HAVE),yes)
nbdkit-filter: $(NBDKIT_SO)
	@:
else
nbdkit-filter:
	@echo "nbdkit filter: not built: <nbdkit-filter.h> or <hiredis/hiredis.h> not found (Debian: nbdkit-plugin-dev libhiredis-dev; as root: sh scripts/deps.sh nbdkit)"
endif

# `make` builds the filter too
all: nbdkit-filter

nbdkit-deps:
	@sh scripts/deps.sh nbdkit || echo "nbdkit filter tests will be skipped"

# after the packages are in, a fresh make sees the headers
nbdkit-check-build: nbdkit-deps $(STLIB)
	@$(MAKE) --no-print-directory nbdkit-filter

# side by side: ioqos, nbdkit's rate filter, qemu-nbd throttling (never in check)
nbdkit-bench: nbdkit-check-build
	@sh scripts/deps.sh bench
	@for b in bench/nbd_*.sh; do echo "== $$b"; sh $$b || exit 1; done

CHECK_DEPS  += nbdkit-check-build
CHECK_EXTRA += $(NBDKIT_TESTS)
# limits, weights and a global limit, each to 2% of its rate over seconds
# of the real clock (t_nbd_threads.sh: R*T + B at every window, 3:1 within
# a point); a client's requests done while a reload is read, in the tenth
# of a second that takes: alone on the machine
CHECK_ALONE += test/nbd/t_nbd_rates.sh test/nbd/t_nbd_cluster.sh test/nbd/t_nbd_reload.sh \
	       test/nbd/t_nbd_threads.sh
# with the headers there when make starts (./check installs them first),
# check-build builds the filter, so that check's recursive make finds it
# made
ifeq ($(NBDKIT_HAVE),yes)
CHECK_BUILD += $(NBDKIT_SO) $(NBDKIT_DELTA)
endif

# The filter built whole under ThreadSanitizer, the library and the
# cluster module with it (position-independent objects of their own), for
# check-long's test/nbd/tsan.sh: nbdkit's threads through the lanes, the
# timer, reloads, the stats writer and clients that go away.  nbdkit itself
# is not built so: the test preloads libtsan.
NBDKIT_TSAN_SO  := $(B)/nbdkit-ioqos-filter-tsan.so
NBDKIT_TSAN_OBJ := $(NBDKIT_SRC:%.c=$(B)/tsan-pic/%.o) $(CLUSTER_SRC:%.c=$(B)/tsan-pic/%.o) \
		   $(LIB_SRC:%.c=$(B)/tsan-pic/%.o)

$(B)/tsan-pic/%.o: %.c $(NBDKIT_HDR) $(CLUSTER_HDR) $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(TSAN_TEST_FLAGS) -Iinclude -Isrc $(CLUSTER_CFLAGS) -fPIC \
	  -fvisibility=hidden -c -o $@ $<

$(NBDKIT_TSAN_SO): $(NBDKIT_TSAN_OBJ) nbdkit/filter.map
	$(CC) $(TSAN_TEST_FLAGS) -fPIC -shared -Wl,--version-script=nbdkit/filter.map -o $@ \
	  $(NBDKIT_TSAN_OBJ) $(CLUSTER_LIBS) -lm

.PHONY: nbdkit-check-tsan
nbdkit-check-tsan: nbdkit-check-build
	@$(MAKE) --no-print-directory $(NBDKIT_TSAN_SO)
	@IOQOS_FILTER_TSAN=$(CURDIR)/$(NBDKIT_TSAN_SO) sh test/nbd/tsan.sh; rc=$$?; \
	  [ $$rc = 0 ] || [ $$rc = 77 ]

ifeq ($(NBDKIT_HAVE),yes)
check-long: nbdkit-check-tsan
endif

# nbdkit finds filters by name in its own filter directory (--filter=ioqos),
# whatever PREFIX is: ask nbdkit where that is
ifeq ($(origin NBDKIT_FILTERDIR),undefined)
NBDKIT_FILTERDIR := $(shell pkg-config --variable=filterdir nbdkit 2>/dev/null || \
                      nbdkit --dump-config 2>/dev/null | sed -n 's/^filterdir=//p')
endif
ifeq ($(NBDKIT_FILTERDIR),)
NBDKIT_FILTERDIR := $(LIBDIR)/nbdkit/filters
endif
.PHONY: install-nbdkit uninstall-nbdkit
install-nbdkit: $(NBDKIT_SO)
	install -d $(DESTDIR)$(NBDKIT_FILTERDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(NBDKIT_SO) $(DESTDIR)$(NBDKIT_FILTERDIR)/
	install -m 644 man/nbdkit-ioqos-filter.1 $(DESTDIR)$(MANDIR)/man1/
ifeq ($(NBDKIT_HAVE),yes)
install: install-nbdkit
else
install: nbdkit-filter
endif

uninstall: uninstall-nbdkit
uninstall-nbdkit:
	rm -f $(DESTDIR)$(NBDKIT_FILTERDIR)/nbdkit-ioqos-filter.so \
	  $(DESTDIR)$(MANDIR)/man1/nbdkit-ioqos-filter.1
