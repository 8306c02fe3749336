#!/usr/bin/env python3
"""depth=auto against depth=max on simulated devices, over seeds.

For each device and seed, `ioqos run --engine sim` runs two groups at
weights 3:1 keeping 64 requests out each (4 KiB random reads) at
depth=max and at depth=auto, the same seed for both, and one group at
iodepth 1 and at 4.  The figures asked of depth=auto:

  - the aggregate at least 95% of depth=max's;
  - A's share 75 +- 3 over the run, and in at least 90% of its 1-s windows;
  - A's mean latency at most 0.85 of depth=max's;
  - no 5-s window below 85% of the same window at depth=max;
  - one group at iodepth 1 or 4: at least 99% of depth=max.

Usage: depth_sweep.py IOQOS WORKDIR SEEDS DEVICE...   (DEVICE: NAME=FILE|PRESET)
Prints one line per device and seed, "ok"/"FAIL" lines per check with the
worst seed, and exits 1 if any check failed.
"""
import csv
import json
import os
import subprocess
import sys

RUNTIME_S = 20


def job(path, groups):
    """a job file: groups is a list of (name, weight, iodepth)"""
    with open(path, "w") as f:
        f.write("[global]\nioengine=io_uring\ndirect=1\nrw=randread\nbs=4k\n"
                "size=1g\ntime_based=1\nruntime=%d\n" % RUNTIME_S)
        for name, weight, depth in groups:
            f.write("[%s]\ncgroup=%s\ncgroup_weight=%d\niodepth=%d\n"
                    % (name, name, weight, depth))


def run(ioqos, work, jobfile, device, seed, depth, tag):
    qos = os.path.join(work, "%s.qos" % depth)
    with open(qos, "w") as f:
        f.write("/ depth=%s\n" % depth)
    log = os.path.join(work, "%s.csv" % tag)
    out = subprocess.run([ioqos, "run", jobfile, "--engine", "sim", "--device", device,
                          "--seed", str(seed), "--qos", qos, "--output-format", "json",
                          "--log-interval", "1000", "--log", log],
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError("ioqos run %s %s seed %d: %s" % (depth, device, seed, out.stderr))
    r = json.loads(out.stdout)
    jobs = {j["jobname"]: j["read"] for j in r["jobs"]}
    rows = {}
    with open(log) as f:
        for row in csv.DictReader(f):
            t = int(float(row["time_ms"]) + 0.5)
            rows.setdefault(t, {})[row["group"]] = float(row["read_iops"])
    return jobs, rows, r["ioqos"]["device"]


def two_groups(ioqos, work, device, seed):
    jf = os.path.join(work, "ab.fio")
    job(jf, [("a", 300, 64), ("b", 100, 64)])
    mx, mrows, _ = run(ioqos, work, jf, device, seed, "max", "max")
    au, arows, dev = run(ioqos, work, jf, device, seed, "auto", "auto")
    tot = lambda j: j["a"]["iops"] + j["b"]["iops"]
    agg = tot(au) / tot(mx)
    share = 100.0 * au["a"]["iops"] / tot(au)
    lat = au["a"]["lat_ns"]["mean"] / mx["a"]["lat_ns"]["mean"]
    # 1-s windows of A's share; 5-s windows of the aggregate, both runs
    secs = sorted(t for t in arows if "/a" in arows[t] and "/b" in arows[t])
    shares = [100.0 * arows[t]["/a"] / (arows[t]["/a"] + arows[t]["/b"])
              for t in secs if arows[t]["/a"] + arows[t]["/b"] > 0]
    in_band = sum(1 for s in shares if abs(s - 75.0) <= 3.0) / max(len(shares), 1)
    worst5 = 1e9
    for start in range(0, RUNTIME_S * 1000, 5000):
        w = [t for t in secs if start < t <= start + 5000]
        a = sum(arows[t].get("/", 0) for t in w)
        m = sum(mrows.get(t, {}).get("/", 0) for t in w)
        if len(w) == 5 and m > 0:
            worst5 = min(worst5, a / m)
    return {"agg": agg, "share": share, "lat": lat, "in_band": in_band,
            "worst5": worst5, "found": dev.get("depth_found", 0)}


def one_group(ioqos, work, device, seed, depth):
    jf = os.path.join(work, "one.fio")
    job(jf, [("a", 100, depth)])
    mx, _, _ = run(ioqos, work, jf, device, seed, "max", "omax")
    au, _, _ = run(ioqos, work, jf, device, seed, "auto", "oauto")
    return au["a"]["iops"] / mx["a"]["iops"]


def main():
    ioqos, work, seeds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    devices = [d.split("=", 1) for d in sys.argv[4:]]
    checks = [
        ("aggregate >= 95% of depth=max", "agg", lambda v: v >= 0.95, min),
        ("A's share 75 +- 3 over the run", "share", lambda v: abs(v - 75.0) <= 3.0,
         lambda vs: max(vs, key=lambda v: abs(v - 75.0))),
        ("A's share 75 +- 3 in >= 90% of 1-s windows", "in_band", lambda v: v >= 0.9, min),
        ("A's latency <= 0.85x", "lat", lambda v: v <= 0.85, max),
        ("no 5-s window below 85% of depth=max's", "worst5", lambda v: v >= 0.85, min),
        ("one group at iodepth 1 and 4 >= 99%", "light", lambda v: v >= 0.99, min),
    ]
    failed = 0
    for name, dev in devices:
        res = []
        for seed in range(seeds):
            r = two_groups(ioqos, work, dev, seed)
            r["light"] = min(one_group(ioqos, work, dev, seed, 1),
                             one_group(ioqos, work, dev, seed, 4))
            res.append(r)
            print("# %s seed %d: aggregate %.3f, A %.2f%%, in band %.0f%%, latency %.3f, "
                  "worst 5 s %.3f, light %.3f, found %s" % (
                      name, seed, r["agg"], r["share"], 100 * r["in_band"], r["lat"],
                      r["worst5"], r["light"], r["found"]))
        for what, key, good, worst in checks:
            vals = [r[key] for r in res]
            w = worst(vals)
            seed = vals.index(w)
            bad = [i for i, v in enumerate(vals) if not good(v)]
            if bad:
                failed += 1
                print("FAIL %s: %s: seeds %s fail; worst %.3f (seed %d)" % (
                    name, what, bad, w, seed))
            else:
                print("ok   %s: %s over %d seeds; worst %.3f (seed %d)" % (
                    name, what, seeds, w, seed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
