#!/bin/sh
# depth=auto against depth=max on simulated devices: this machine's disk as
# measured (examples/sim/vmdisk.dev, with its speed log), the same curve
# with a seeded drift (10%, 50 ms), with steps 2-3 times slower, beside a
# neighbour writing in bursts (vmdisk-neighbour.dev), and the ssd, nvme
# and hdd presets.  Two groups at 3:1 with 64 out each, and one group at
# iodepth 1 and 4; what is asked of each is in depth_sweep.py.  SEEDS
# seeds each (1 here, seed 0; `make check-long` runs 20).  The optimised
# build runs it: the sweep is about the controller's figures over long
# virtual runs, and the same code runs under the sanitizers in
# t_cli_sim.sh.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
FAST=$ROOT/build/ioqos
[ -x "$FAST" ] || { echo "no $FAST: build it first"; exit 1; }
SIM=$ROOT/examples/sim

# the shipped files name their speed log relatively: the variants here
# name it by its full path, or leave it out for the drift and the steps
sed "s|^speed_log=.*|speed_log=$SIM/vmdisk-speed.log|" "$SIM/vmdisk.dev" >"$TMP/vm.dev"
sed "s|^speed_log=.*|speed_log=$SIM/vmdisk-speed.log|" "$SIM/vmdisk-neighbour.dev" >"$TMP/nb.dev"
grep -v '^speed_log=' "$SIM/vmdisk.dev" >"$TMP/calm.dev"
{ cat "$TMP/calm.dev"; echo drift=10; echo drift_tau=50ms; } >"$TMP/drift.dev"
{ cat "$TMP/calm.dev"; echo steps=2-3; echo step_every=2s; echo step_len=500ms; } >"$TMP/steps.dev"

python3 "$(dirname "$0")/depth_sweep.py" "$FAST" "$TMP" "${SEEDS:-1}" \
	"vmdisk=$TMP/vm.dev" "vmdisk+drift=$TMP/drift.dev" "vmdisk+steps=$TMP/steps.dev" \
	"vmdisk+neighbour=$TMP/nb.dev" ssd=ssd nvme=nvme hdd=hdd >"$TMP/out" 2>&1
rc=$?
cat "$TMP/out"
if [ "$rc" != 0 ] && ! grep -q '^FAIL' "$TMP/out"; then
	bad "the sweep did not run (exit $rc)"
fi
fails=$((fails + $(grep -c '^FAIL' "$TMP/out")))
passes=$((passes + $(grep -c '^ok ' "$TMP/out")))
[ $((passes + fails)) -gt 0 ] || bad "the sweep checked nothing"
finish
