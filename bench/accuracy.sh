#!/bin/bash
# Rate accuracy: the 2014 blk-throttle hierarchy tests A, B and C, and the
# burst a limiter lets through after an idle period, under
#
#   ioqos    ioqos run, io_uring, O_DIRECT on a loop device, the tree and
#            limits in a --qos file
#   kernel   blk-throttle, cgroup v1 blkio.throttle.read_bps_device on the
#            same loop device, one fio process per group (fio, io_uring)
#   fio      fio's own rate= per job (flat: each reader gets the share the
#            tree gives it, computed by hand -- fio has no hierarchy)
#   nbdkit   nbdkit's rate filter (one server per reader, flat as fio),
#            read through fio's nbd engine
#   qemu-nbd a throttle filter node in a throttle group (one server per
#            reader, flat), through fio's nbd engine
#
# Readers are dd-like: sequential 4 KiB reads, iodepth 1, each in a region
# of its own.  The tree (limits in bytes/s, k = 1024):
#
#   test A   /1 200k; a reader in /1/2/3, then one in /1/2       -> 200k each
#   test B   /1/2 100k, /1/2/3 50k, /4 50k, /1 unlimited;
#            readers in /1, /1/2, /1/2/3, /4  -> /1/2 own 50k, /1/2/3 50k, /4 50k
#   test C   as B and /1 200k              -> /1 own 100k, others as B
#
# Burst after idle: a group limited to 1 MiB/s reads for 2 s (backlogged),
# idles 5 s, then reads again: the bytes completed in the first 50, 100,
# 200, 500 and 1000 ms, with 4 KiB requests at iodepth 32 and with one
# 1 MiB request at a time.  An exact limiter with no burst lets R x t through.
#
#   bench/accuracy.sh              (QUICK=1: 4 s per case; PEERS="ioqos kernel"
#                                   to run some peers only; DUR=s per case)
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
bench_init

DUR=${DUR:-$(pick 4 15)}
PEERS=${PEERS:-ioqos kernel fio nbdkit qemu-nbd}
K=1024
REGION_MB=32

loop_setup $((REGION_MB * 5))

peer_ok() { # why a peer cannot run here, or nothing
	case $1 in
	kernel)   is_root && have_blkio || echo "needs root and cgroup v1 blkio ($BLKIO)" ;;
	nbdkit)   have nbdkit && [ -n "$(ls /usr/lib/*/nbdkit/filters/nbdkit-rate-filter.so 2>/dev/null)" ] ||
			echo "nbdkit and its rate filter are not installed (apt-get install nbdkit)"
		  fio --enghelp 2>/dev/null | grep -qx '[[:space:]]*nbd' || echo "this fio has no nbd engine" ;;
	qemu-nbd) have qemu-nbd || echo "qemu-nbd is not installed (apt-get install qemu-utils)"
		  fio --enghelp 2>/dev/null | grep -qx '[[:space:]]*nbd' || echo "this fio has no nbd engine" ;;
	esac
}

# reader index -> group, region offset
declare -A GROUP=([r1]=1 [r12]=1/2 [r123]=1/2/3 [r4]=4)
declare -A OFF=([r1]=0 [r12]=1 [r123]=2 [r4]=3)

# fio_section NAME RATE(B/s, 0 = none) [extra lines]: a reader for the
# flat peers; the engine lines come from the peer
fio_section() {
	local n=$1 rate=$2
	printf '[%s]\n' "$n"
	[ "$rate" -gt 0 ] 2>/dev/null && printf 'rate=%s\n' "$rate"
	printf 'offset=%dm\nsize=%dm\n' $((OFF[$n] * REGION_MB)) "$REGION_MB"
	shift 2
	for l in "$@"; do printf '%s\n' "$l"; done
}
fio_global() { # engine lines
	printf '[global]\nrw=read\nbs=4k\niodepth=1\nruntime=%s\ntime_based\n' "$DUR"
	for l in "$@"; do printf '%s\n' "$l"; done
}
DEVLINES=("ioengine=io_uring" "direct=1" "filename=$DEV")

# ---- servers for the NBD peers -----------------------------------------

# serve PEER NAME RATE(B/s, 0 = none): start a server on $WORK/NAME.sock
serve() {
	local peer=$1 n=$2 rate=$3 sock=$WORK/$2.sock pid
	rm -f "$sock"
	case $peer in
	nbdkit)
		if [ "$rate" -gt 0 ]; then
			nbdkit -f -r -U "$sock" --filter=rate file "$DEV" rate=$((rate * 8)) 2>>"$WORK/server.log" &
		else
			nbdkit -f -r -U "$sock" file "$DEV" 2>>"$WORK/server.log" &
		fi ;;
	qemu-nbd)
		if [ "$rate" -gt 0 ]; then
			qemu-nbd -r -t -e 8 -k "$sock" --object "throttle-group,id=tg,x-bps-read=$rate" \
				--image-opts "driver=throttle,throttle-group=tg,file.driver=host_device,file.filename=$DEV" 2>>"$WORK/server.log" &
		else
			qemu-nbd -r -t -e 8 -k "$sock" -f raw "$DEV" 2>>"$WORK/server.log" &
		fi ;;
	esac
	pid=$!
	track_pid "$pid"
	SERVERS+=("$pid")
	for _ in $(seq 100); do [ -S "$sock" ] && return 0; sleep 0.05; done
	die "$peer did not start (see $WORK/server.log)"
}
stop_servers() {
	local p
	for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; untrack_pid "$p"; done
	SERVERS=()
}
SERVERS=()
nbdlines() { echo "ioengine=nbd"; echo "uri=nbd+unix:///?socket=$WORK/$1.sock"; }

# ---- one hierarchy test under one peer ------------------------------------

# hier PEER TEST READERS...: writes "reader B/s" lines to $WORK/out.$PEER.$TEST
# limits of the tree per test, and the flat share of each reader
declare -A LIM_A=([1]=$((200 * K)))
declare -A LIM_B=([1/2]=$((100 * K)) [1/2/3]=$((50 * K)) [4]=$((50 * K)))
declare -A LIM_C=([1]=$((200 * K)) [1/2]=$((100 * K)) [1/2/3]=$((50 * K)) [4]=$((50 * K)))
declare -A SHARE_A=([r12]=$((200 * K)) [r123]=$((200 * K)))
declare -A SHARE_B=([r1]=0 [r12]=$((50 * K)) [r123]=$((50 * K)) [r4]=$((50 * K)))
declare -A SHARE_C=([r1]=$((100 * K)) [r12]=$((50 * K)) [r123]=$((50 * K)) [r4]=$((50 * K)))

hier() {
	local peer=$1 t=$2 out=$WORK/out.$1.$2.$3
	shift 2
	local -n lim=LIM_$t share=SHARE_$t
	local r g q
	: > "$out"
	case $peer in
	ioqos)
		{ fio_global "${DEVLINES[@]}"; for r in "$@"; do fio_section "$r" 0 "cgroup=${GROUP[$r]}"; done; } > "$WORK/j.fio"
		: > "$WORK/j.qos"
		for g in "${!lim[@]}"; do
			# the tree file may name only groups some reader uses (or their ancestors)
			for r in "$@"; do case "${GROUP[$r]}/" in "$g"/*) echo "/$g rbps=${lim[$g]}" >> "$WORK/j.qos"; break ;; esac; done
		done
		ioqos_run "$WORK/j.fio" --qos "$WORK/j.qos" --output-format json > "$WORK/j.json" || die "ioqos failed"
		for r in "$@"; do echo "$r $($PY job "$WORK/j.json" "$r" bw_bytes)" >> "$out"; done ;;
	kernel)
		for g in 1 1/2 1/2/3 4; do cg_make "ioqos-bench/$g" || die "cannot make cgroups"; done
		for g in 1 1/2 1/2/3 4; do echo "$MM ${lim[$g]:-0}" > "$BLKIO/ioqos-bench/$g/blkio.throttle.read_bps_device"; done
		local pids=()
		for r in "$@"; do
			{ fio_global "${DEVLINES[@]}"; fio_section "$r" 0; } > "$WORK/$r.fio"
			in_cg "$BLKIO/ioqos-bench/${GROUP[$r]}" fio --output-format=json --output="$WORK/$r.json" "$WORK/$r.fio" &
			pids+=($!)
		done
		for q in "${pids[@]}"; do wait "$q" || die "fio failed"; done
		for g in 1 1/2 1/2/3 4; do echo "$MM 0" > "$BLKIO/ioqos-bench/$g/blkio.throttle.read_bps_device"; done
		for r in "$@"; do echo "$r $($PY job "$WORK/$r.json" "$r" bw_bytes)" >> "$out"; done ;;
	fio)
		{ fio_global "${DEVLINES[@]}"; for r in "$@"; do fio_section "$r" "${share[$r]}"; done; } > "$WORK/j.fio"
		fio --output-format=json --output="$WORK/j.json" "$WORK/j.fio" || die "fio failed"
		for r in "$@"; do echo "$r $($PY job "$WORK/j.json" "$r" bw_bytes)" >> "$out"; done ;;
	nbdkit|qemu-nbd)
		for r in "$@"; do serve "$peer" "$r" "${share[$r]}"; done
		# one fio per reader: fio's nbd engine takes one uri per job file
		local pids=()
		for r in "$@"; do
			{ fio_global $(nbdlines "$r"); fio_section "$r" 0; } > "$WORK/$r.fio"
			fio --output-format=json --output="$WORK/$r.json" "$WORK/$r.fio" &
			pids+=($!)
		done
		for q in "${pids[@]}"; do wait "$q" || die "fio failed"; done
		stop_servers
		for r in "$@"; do echo "$r $($PY job "$WORK/$r.json" "$r" bw_bytes)" >> "$out"; done ;;
	esac
}

# ---- burst after idle under one peer ------------------------------------

MARKS="50 100 200 500 1000 2000"
RATE_B=$((1024 * K))

# burst PEER BS DEPTH: prints the bytes completed by each mark
burst() {
	local peer=$1 bs=$2 qd=$3 meas=2500ms warm=2
	local common=("rw=read" "bs=$bs" "iodepth=$qd" "size=${REGION_MB}m")
	case $peer in
	ioqos)
		{ printf '[global]\n'; printf '%s\n' "${common[@]}" "${DEVLINES[@]}"
		  printf '[warm]\ncgroup=b\nruntime=%s\ntime_based\n' $warm
		  printf '[burst]\ncgroup=b\nstartdelay=%s\nruntime=%s\ntime_based\n' $((warm + 5)) $meas; } > "$WORK/b.fio"
		echo "/b rbps=$RATE_B" > "$WORK/b.qos"
		ioqos_run "$WORK/b.fio" --qos "$WORK/b.qos" --log-interval 1 --log "$WORK/b.csv" > /dev/null || die "ioqos failed"
		$PY burst-ioqos "$WORK/b.csv" /b $(((warm + 5) * 1000)) $MARKS ;;
	fio)
		# one job that idles: 5 s of thinktime after 8 MiB (8 s at the
		# rate), so that what follows the idle period is not cut short by
		# the next think time
		local nblk=$(( 8 * RATE_B / $(numfmt --from=iec "${bs^^}") ))
		{ printf '[global]\n'; printf '%s\n' "${common[@]}" "${DEVLINES[@]}"
		  printf '[b]\nrate=%s\nthinktime=5s\nthinktime_blocks=%s\nruntime=%s\ntime_based\n' $RATE_B "$nblk" $((8000 + 5000 + 2500))ms
		  printf 'write_lat_log=%s\nlog_avg_msec=0\n' "$WORK/bl"; } > "$WORK/b.fio"
		fio --output="$WORK/b.out" "$WORK/b.fio" || die "fio failed"
		$PY burst-fio "$WORK/bl_lat.1.log" $MARKS ;;
	kernel|nbdkit|qemu-nbd)
		local eng=("${DEVLINES[@]}") pre=()
		if [ "$peer" = kernel ]; then
			cg_make "ioqos-bench/b" || die "cannot make a cgroup"
			echo "$MM $RATE_B" > "$CG/blkio.throttle.read_bps_device"
			pre=(in_cg "$CG")
		else
			serve "$peer" b "$RATE_B"
			mapfile -t eng < <(nbdlines b)
		fi
		{ printf '[global]\n'; printf '%s\n' "${common[@]}" "${eng[@]}"
		  printf '[warm]\nruntime=%s\ntime_based\n' $warm
		  printf '[burst]\nstonewall\nstartdelay=5\nruntime=%s\ntime_based\n' $meas
		  printf 'write_lat_log=%s\nlog_avg_msec=0\n' "$WORK/bl"; } > "$WORK/b.fio"
		rm -f "$WORK"/bl_*.log
		"${pre[@]}" fio --output="$WORK/b.out" "$WORK/b.fio" || die "fio failed"
		if [ "$peer" = kernel ]; then echo "$MM 0" > "$CG/blkio.throttle.read_bps_device"; else stop_servers; fi
		$PY burst-fio "$(ls "$WORK"/bl_lat.*.log | tail -1)" $MARKS ;;
	esac
}

# ---- run -----------------------------------------------------------------

say "### Rate accuracy: the 2014 hierarchy tests and burst after idle"
say ""
machine
say "device: $DEV, a loop device (direct I/O) on a file on $BACK ($(cat /sys/block/$(basename "$BACK")/queue/scheduler 2>/dev/null | sed 's/.*\[\(.*\)\].*/\1/'))"
say "command: ${0#$TOP/} (DUR=$DUR; $(fio --version); $(nbdkit --version 2>/dev/null | head -1); $(qemu-nbd --version 2>/dev/null | head -1))"
say ""
RUN=()
for p in $PEERS; do
	why=$(peer_ok "$p")
	if [ -n "$why" ]; then say "SKIP: peer $p: $why"; else RUN+=("$p"); fi
done

for p in "${RUN[@]}"; do
	note "test A, $p"
	hier "$p" A r123; hier "$p" A r12
	note "test B, $p"; hier "$p" B r1 r12 r123 r4
	note "test C, $p"; hier "$p" C r1 r12 r123 r4
done

# a table per test: one row per reader, limit, then achieved / error per peer
table() {
	local t=$1 part=$2
	shift 2
	local -n share=SHARE_$t
	local hdr="| reader (group) | expected |" sep="|---|---|"
	for p in "${RUN[@]}"; do hdr="$hdr $p | error |"; sep="$sep---|---|"; done
	say "$hdr"; say "$sep"
	for r in "$@"; do
		local row="| ${r} (/${GROUP[$r]}) | ${share[$r]/#0/unlimited} |"
		for p in "${RUN[@]}"; do
			local v
			v=$(awk -v r="$r" '$1 == r { print $2 }' "$WORK/out.$p.$t.$part")
			if [ "${share[$r]}" = 0 ]; then row="$row $(ints "$v") | - |"
			else row="$row $(ints "$v") | $(err "$v" "${share[$r]}") |"; fi
		done
		say "$row"
	done
	say ""
}
say "Test A (B/s; /1 limited to 200k = 204800; phase 1: a reader in /1/2/3, phase 2: one in /1/2; ${DUR} s each):"
say ""
table A r123 r123
table A r12 r12
say "Test B (B/s; /1/2 100k, /1/2/3 50k, /4 50k, /1 unlimited; ${DUR} s):"
say ""
table B r1 r1 r12 r123 r4
say "Test C (B/s; as B and /1 200k; ${DUR} s):"
say ""
table C r1 r1 r12 r123 r4

say "Burst after 5 s idle at 1 MiB/s (bytes completed within t of the first request after the idle period):"
say ""
hdr="| limiter | requests |"; sep="|---|---|"
for m in $MARKS; do hdr="$hdr $m ms |"; sep="$sep---|"; done
hdr="$hdr first done (ms) |"; sep="$sep---|"
say "$hdr"; say "$sep"
row="| exact R x t (no burst) | - |"
for m in $MARKS; do row="$row $((RATE_B * m / 1000)) |"; done
row="$row - |"
say "$row"
for p in "${RUN[@]}"; do
	for v in "4k 32" "1m 1"; do
		set -- $v
		note "burst $p bs=$1 iodepth=$2"
		# not in $(...): the servers and cgroups it makes must be
		# cleaned up by this shell
		burst "$p" "$1" "$2" > "$WORK/burst.out" || die "burst $p failed"
		b=$(cat "$WORK/burst.out")
		say "| $p | ${1^^}B x $2 | ${b// / | } |"
	done
done
say ""
