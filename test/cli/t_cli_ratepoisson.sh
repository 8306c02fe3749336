#!/bin/sh
# rate_process=poisson: on the sim engine, 10 s at rate_iops=1000 counted
# per millisecond (write_iops_log averaged over 1 ms): the counts follow
# the Poisson law of their mean (P(k) = m^k e^-m / k!, each of k = 0..3
# within 0.02 of it, four standard errors of 10000 windows), where
# linear gives exactly one every millisecond.  io_submit_mode=offload is
# taken and changes nothing (ioqos submits at the rate's times anyway).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
cd "$TMP" || exit 1

for p in linear poisson; do
	for m in inline offload; do
		mkdir -p "$p$m"
		printf '[p]\nioengine=sim\nrw=randread\nbs=4k\nsize=1g\niodepth=32\nruntime=10s\ntime_based\nrate_iops=1000\nrate_process=%s\nio_submit_mode=%s\nwrite_iops_log\nlog_avg_msec=1\n' \
			$p $m >"$p$m/p.fio"
		(cd "$p$m" && "$IOQOS" run p.fio --device ssd >/dev/null 2>err) ||
			bad "$p $m: $(cat "$p$m/err")"
	done
	cmp -s "${p}inline/p_iops.1.log" "${p}offload/p_iops.1.log" &&
		ok "$p: offload as inline" || bad "$p: offload differs"
done
if python3 - linearinline/p_iops.1.log poissoninline/p_iops.1.log <<'PY'
import collections, math, sys
def counts(path):
    return [int(l.split(",")[1]) // 1000 for l in open(path)]
lin, poi = counts(sys.argv[1]), counts(sys.argv[2])
assert len(lin) == len(poi) == 10000, (len(lin), len(poi))
assert set(lin) == {1}, collections.Counter(lin)
m = sum(poi) / len(poi)
assert 0.97 < m < 1.03, m
c = collections.Counter(poi)
for k in range(4):
    want = m ** k * math.exp(-m) / math.factorial(k)
    got = c[k] / len(poi)
    assert abs(got - want) < 0.02, (k, got, want)
PY
then ok "poisson: per-ms counts follow the Poisson law, linear one each"; else bad "poisson counts"; fi

expect_fail "an unknown rate_process" "rate_process=bursty: expected linear or poisson" \
	sh -c 'printf "[x]\nsize=1m\nrate_iops=10\nrate_process=bursty\n" >x.fio && "$0" check x.fio' "$IOQOS"
finish
