#!/usr/bin/env python3
"""Scaling plots: ms/step against bodies and against workers, Tumble's CPU step beside Jolt's and
Box3D's (docs/PERF.md, "Scaling"). Standard library only; the plots are hand-written SVG.

The family of scenes is Box3D's many_pyramids at other sizes: k x k pyramids of base 10 (55 boxes of
1 m, density 100, friction 0.6, gravity -10, no sleeping) 11 m apart in x and z on a static box
ground, k = 4, 7, 14, 23, 43 (880 to 101,695 boxes; k = 14 is Box3D's own size, 10,780 boxes). The
pyramids start at rest, touching, so a short warm-up reaches the steady cost.

- bodies.svg: ms/step against boxes (log-log), 1 worker and all workers, Tumble and Jolt on every size;
  Box3D's runner only builds its own scenes, so its points are large_pyramid (5,050 boxes) and
  many_pyramids (10,780) at 1 and at all workers.
- workers.svg: ms/step against workers (1..N) on the 10,780-box member (many_pyramids itself, which
  is what Box3D's runner steps).
- sweep.csv: every run: engine, scene, boxes, workers, ms/step (median over the timed steps), the
  run's CPU share (user + system over wall, from /proc/self's children times) and the load average.

Steps: Tumble and Jolt take WARMUP warm-up steps and then STEPS timed ones, fewer for the largest
scenes (STEPS_BIG timed steps over 20,000 boxes) so that the whole sweep takes minutes on 2 cores; Box3D takes its
runner's own step counts (100 and 200; ms/step = the median of its per-step times).

Usage: sweep.py [--sandbox bin/sandbox] [--jolt PATH] [--box3d PATH] [--out docs/perf] [--sizes 4,7,14,23,43]
                [--workers N] [--from-csv FILE]   (--from-csv redraws the plots from a CSV, running nothing)
"""

import argparse
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

WARMUP, STEPS, STEPS_BIG = 10, 30, 6
BOX3D_STEPS = {"large_pyramid": 200, "many_pyramids": 100}
BOX3D_BOXES = {"large_pyramid": 5050, "many_pyramids": 10780}


def pyramids(k):
    """k x k pyramids of base 10 (Box3D's CreateSmallPyramid), as a Tumble scene."""
    pitch, base = 11.0, 10
    ground = k * pitch / 2 + 1
    bodies = [{"name": "ground", "type": "static", "shape": {"type": "box", "halfExtents": [ground, 1, ground]},
               "position": [0, -1, 0], "friction": 0.6}]
    for r in range(k):
        for c in range(k):
            cx, cz = (c - (k - 1) / 2) * pitch, (r - (k - 1) / 2) * pitch
            for i in range(base):
                for j in range(i, base):
                    x = cx + (i + 1) * 0.5 + (j - i) - base / 2
                    bodies.append({"shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]},
                                   "position": [x, 0.5 + i, cz], "density": 100, "friction": 0.6})
    return {"name": "pyramids%d: %d x %d pyramids of base 10" % (k, k, k), "gravity": [0, -10, 0],
            "dt": 1 / 60, "solver": {"sleep": False}, "bodies": bodies}


def timed(cmd, cwd):
    """Runs cmd; returns its stdout and CPU share (%), from the children's CPU times around it."""
    t0 = os.times()
    c0 = t0.children_user + t0.children_system
    wall0 = t0.elapsed
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("sweep: %s failed (%d): %s" % (" ".join(cmd), out.returncode, out.stderr.strip()[-400:]))
    t1 = os.times()
    share = 100 * (t1.children_user + t1.children_system - c0) / max(t1.elapsed - wall0, 1e-9)
    return out.stdout, share


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run_tumble(sandbox, scene, workers, steps, cwd):
    out, share = timed([sandbox, "bench", "-scene", scene, "-warmup", str(WARMUP), "-steps", str(steps),
                        "-workers", str(workers)], cwd)
    m = re.search(r"^total \(wall\)\s+\S+\s+(\S+)", out, re.M)
    return float(m.group(1)), share


def run_jolt(jolt, scene, threads, steps, cwd):
    out, share = timed([jolt, "bench", "-scene", scene, "-warmup", str(WARMUP), "-steps", str(steps),
                        "-threads", str(threads)], cwd)
    m = re.search(r"^median_ms\s+(\S+)", out, re.M)
    return float(m.group(1)), share


def run_box3d(box3d, name, workers, cwd):
    _, share = timed([box3d, "-b=" + name, "-t=%d" % workers, "-w=%d" % workers, "-r=1", "-s"], cwd)
    with open(os.path.join(cwd, "%s_t%d.dat" % (name, workers))) as f:
        steps = [float(line.split()[0]) for line in f.read().splitlines()[1:] if line.strip()]
    return statistics.median(steps), share


def measure(args):
    rows = []
    work = tempfile.mkdtemp(prefix="tumble-sweep-")
    ncpu = args.workers
    sizes = [int(k) for k in args.sizes.split(",")]

    date = subprocess.run(["date", "-u", "+%Y-%m-%d %H:%M UTC"], capture_output=True, text=True).stdout.strip()
    out = open(os.path.join(args.out, "sweep.csv"), "w", newline="")
    wr = csv.DictWriter(out, fieldnames=["engine", "scene", "boxes", "workers", "ms", "cpu", "load", "date"])
    wr.writeheader()

    def add(engine, scene, boxes, w, ms, share):
        # Written as it comes, so that an interrupted sweep keeps what it measured (--from-csv).
        rows.append({"engine": engine, "scene": scene, "boxes": boxes, "workers": w, "ms": "%.4f" % ms,
                     "cpu": "%.0f" % share, "load": "%.2f" % load(), "date": "%s, %d cores" % (date, ncpu)})
        wr.writerow(rows[-1])
        out.flush()
        print("%-6s %-14s %7d boxes  W=%d  %9.3f ms/step  cpu %4.0f%%" % (engine, scene, boxes, w, ms, share),
              flush=True)

    for k in sizes:
        s = pyramids(k)
        path = os.path.join(work, "pyramids%d.json" % k)
        with open(path, "w") as f:
            json.dump(s, f)
        boxes = len(s["bodies"]) - 1
        steps = STEPS if boxes <= 20000 else STEPS_BIG
        ws = range(1, ncpu + 1) if k == 14 else sorted({1, ncpu})
        for w in ws:  # interleaved: Tumble, then Jolt, at each point
            add("tumble", "pyramids%d" % k, boxes, w, *run_tumble(args.sandbox, path, w, steps, work))
            if args.jolt:
                add("jolt", "pyramids%d" % k, boxes, w, *run_jolt(args.jolt, path, w, steps, work))
    if args.box3d:
        for name in ("large_pyramid", "many_pyramids"):
            ws = range(1, ncpu + 1) if name == "many_pyramids" else sorted({1, ncpu})
            for w in ws:
                add("box3d", name, BOX3D_BOXES[name], w, *run_box3d(args.box3d, name, w, work))
    out.close()
    return rows


# The plots.

COLOURS = {"tumble": "#d62728", "jolt": "#1f77b4", "box3d": "#2ca02c"}
NAMES = {"tumble": "Tumble (CPU, PGS default)", "jolt": "Jolt 5.5.0", "box3d": "Box3D (its runner)"}
W, H, L, R, T, B = 640, 420, 70, 200, 40, 55


def nice_ticks(lo, hi, log):
    if log:
        ticks = []
        for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
            for m in (1, 2, 5):
                v = m * 10 ** e
                if lo <= v <= hi:
                    ticks.append(v)
        return ticks
    return list(range(int(lo), int(hi) + 1))


def fmt(v):
    return ("%g" % v) if v < 1000 else ("%gk" % (v / 1000))


def svg_plot(path, title, xlabel, series, xlog, note):
    """series: [(label, colour, dashed, [(x, y)...])]; y is ms/step on a log axis. No points, no file."""
    if not series:
        return
    xs = [x for _, _, _, pts in series for x, _ in pts]
    ys = [y for _, _, _, pts in series for _, y in pts]
    if xlog:
        xlo, xhi = min(xs) / 1.5, max(xs) * 1.5
    else:
        xlo, xhi = min(xs) - 0.25, max(xs) + 0.25
    ylo, yhi = 10 ** math.floor(math.log10(min(ys))), 10 ** math.ceil(math.log10(max(ys)))

    def px(x):
        f = (math.log10(x) - math.log10(xlo)) / (math.log10(xhi) - math.log10(xlo)) if xlog else (x - xlo) / (xhi - xlo)
        return L + f * (W - L - R)

    def py(y):
        return H - B - (math.log10(y) - math.log10(ylo)) / (math.log10(yhi) - math.log10(ylo)) * (H - T - B)

    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
         'font-family="sans-serif" font-size="12">' % (W, H, W, H),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>' % (L, title)]
    for t in nice_ticks(ylo, yhi, True):
        y = py(t)
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (L, y, W - R, y))
        o.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (L - 6, y + 4, fmt(t)))
    for t in nice_ticks(xlo if xlog else min(xs), xhi if xlog else max(xs), xlog):
        x = px(t)
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x, T, x, H - B))
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (x, H - B + 16, fmt(t)))
    o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>' % (L, T, W - L - R, H - T - B))
    o.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % ((L + W - R) / 2, H - B + 34, xlabel))
    o.append('<text transform="translate(18 %d) rotate(-90)" text-anchor="middle">ms/step (median)</text>'
             % ((T + H - B) / 2))
    o.append('<text x="%d" y="%d" font-size="10" fill="#555">%s</text>' % (L, H - 6, note))
    for i, (label, colour, dashed, pts) in enumerate(series):
        pts = sorted(pts)
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        if len(pts) > 1:
            o.append('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>'
                     % (colour, dash, " ".join("%.1f,%.1f" % (px(x), py(y)) for x, y in pts)))
        for x, y in pts:
            o.append('<circle cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="white"/>' % (px(x), py(y), colour))
        ly = T + 10 + 18 * i
        o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>'
                 % (W - R + 10, ly, W - R + 34, ly, colour, dash))
        o.append('<text x="%d" y="%d">%s</text>' % (W - R + 40, ly + 4, label))
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def plot(rows, out, ncpu):
    note = "%s; many_pyramids' family: k x k pyramids of 55 boxes; see docs/PERF.md" % rows[0].get("date", "")
    series = []
    for engine in ("tumble", "jolt", "box3d"):
        for w, dashed in ((1, False), (ncpu, True)):
            pts = [(int(r["boxes"]), float(r["ms"])) for r in rows
                   if r["engine"] == engine and int(r["workers"]) == w]
            if pts:
                series.append(("%s, %d %s" % (engine.capitalize() if engine != "box3d" else "Box3D", w,
                                              "worker" if w == 1 else "workers"), COLOURS[engine], dashed, pts))
    svg_plot(os.path.join(out, "bodies.svg"), "ms/step against boxes (CPU)", "boxes", series, True, note)
    series = []
    for engine, scene in (("tumble", "pyramids14"), ("jolt", "pyramids14"), ("box3d", "many_pyramids")):
        pts = [(int(r["workers"]), float(r["ms"])) for r in rows if r["engine"] == engine and r["scene"] == scene]
        if pts:
            series.append((NAMES[engine], COLOURS[engine], False, pts))
    svg_plot(os.path.join(out, "workers.svg"), "ms/step against workers, 10,780 boxes", "workers (threads)",
             series, False, note)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sandbox", default="bin/sandbox")
    ap.add_argument("--jolt", default="../shared/tools/peers/jolt-runner")
    ap.add_argument("--box3d", default="../shared/tools/peers/box3d/bin/benchmark")
    ap.add_argument("--out", default="docs/perf")
    ap.add_argument("--sizes", default="4,7,14,23,43")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--from-csv")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.from_csv:
        with open(args.from_csv) as f:
            rows = list(csv.DictReader(f))
        plot(rows, args.out, max(int(r["workers"]) for r in rows))
        return
    args.sandbox = os.path.abspath(args.sandbox)
    for name in ("jolt", "box3d"):
        p = getattr(args, name)
        if not (os.path.isfile(p) and os.access(p, os.X_OK)):
            print("sweep: no %s at %s: left out of the plots" % (name, p), file=sys.stderr)
            setattr(args, name, None)
        else:
            setattr(args, name, os.path.abspath(p))
    rows = measure(args)
    plot(rows, args.out, args.workers)


if __name__ == "__main__":
    main()
