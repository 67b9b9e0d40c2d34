"""run_bench.py's output: each measurement's rate, graft's speed relative
to each peer, the header and the table (README.md, "Reading the output")."""
import build_time
from cases import LIBRARIES


def clock_key(clock, threads):
    """Which per-call time a rate comes from (run_bench.py --clock): with
    'cpu', a 1-thread row's min CPU time (the calling thread's,
    harness/timing.h); with 'wall', and for every row at more threads, the
    min wall time. The process's CPU clock does not serve at N threads:
    Linux adds another running thread's time to it only at scheduler ticks,
    so the least of samples of a millisecond or two leaves most of the
    other threads' time out (0.46 ms of CPU for a call of 0.47 ms wall on
    two busy threads)."""
    return "cpu_min_ms" if clock == "cpu" and threads == 1 else "min_ms"


def rate(m, threads, clock="wall"):
    """Work per second of a measurement at |threads|, from the time
    clock_key picks."""
    ms = m.get(clock_key(clock, threads))
    return m["work"] / (ms * 1e-3) if ms else 0.0


def summarize(row, clock="wall"):
    """Adds each peer's rate and graft's speed relative to it (>1: graft
    faster), and the best peer."""
    row["graft"]["rate"] = rate(row["graft"], row["threads"], clock)
    best = None
    for p in row["peers"]:
        if p["status"] != "ok":
            continue
        p["rate"] = rate(p, row["threads"], clock)
        p["graft_speedup"] = row["graft"]["rate"] / p["rate"] if p["rate"] else None
        if best is None or p["rate"] > best["rate"]:
            best = p
    row["best_peer"] = best["label"] if best else None
    row["graft_vs_best"] = best["graft_speedup"] if best else None
    return row


def fmt_time(ms):
    if ms is None:
        return "-"
    return "%.3g us" % (ms * 1e3) if ms < 1 else "%.4g ms" % ms


def fmt_rate(value, unit):
    if unit == "flop":
        return "%.1f GF/s" % (value / 1e9)
    if unit == "op":
        return "%.1f GOP/s" % (value / 1e9)
    if unit == "byte":
        return "%.1f GB/s" % (value / 1e9)
    return "%.3g us/call" % (1e6 / value) if value else "-"


def table_lines(rows):
    head = ["case", "size", "T", "implementation", "median", "min", "max", "rate",
            "graft/this"]
    lines = []
    for r in rows:
        g = r["graft"]
        vs = ("%.2fx best (%s)" % (r["graft_vs_best"], r["best_peer"])
              if r["graft_vs_best"] else "no peer ran")
        lines.append([r["case"], r["size"], str(r["threads"]), "graft",
                      fmt_time(g["median_ms"]), fmt_time(g["min_ms"]),
                      fmt_time(g["max_ms"]), fmt_rate(g["rate"], r["unit"]), vs])
        for p in r["peers"]:
            name = p["label"] + ("+" + p["args"][-1] if p["args"] else "")
            if p["status"] == "ok":
                lines.append(["", "", "", name, fmt_time(p["median_ms"]),
                              fmt_time(p["min_ms"]), fmt_time(p["max_ms"]),
                              fmt_rate(p["rate"], r["unit"]),
                              "%.2fx" % p["graft_speedup"]])
            else:
                lines.append(["", "", "", name, p["status"].upper() + ": " + p["why"]]
                             + [""] * 4)
    return head, lines


def is_note(cells):
    """A MISSING/FAILED line: its text runs across the columns after it."""
    return cells[4].startswith(("MISSING", "FAILED"))


def print_table(head, lines):
    widths = [max([len(h)] + [len(l[i]) for l in lines if i < 4 or not is_note(l)])
              for i, h in enumerate(head)]
    right = {4, 5, 6, 7}

    def fmt(cells):
        if is_note(cells):
            return "  ".join(c.ljust(widths[i]) for i, c in enumerate(cells[:4])) + \
                "  " + cells[4]
        return "  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i])
                         for i, c in enumerate(cells)).rstrip()
    print(fmt(head))
    print("  ".join("-" * w for w in widths))
    for line in lines:
        print(fmt(line))


def header(meta):
    cpu = meta["cpu"]
    info = meta["peers"]
    out = ["graft benchmarks, %s, %s" % (meta["date"], meta["host"]),
           "CPU: %s, %d logical CPUs on %d cores%s; ISA: %s" % (
               cpu["model"], cpu["logical_cpus"], cpu["cores"],
               " (virtual machine)" if cpu["virtual_machine"] else "",
               " ".join(cpu["isa"]) or "baseline"),
           "graft %s: target %s" % (meta["graft_revision"], meta["graft_target"]),
           "threads per row: %s; load average %s at start, %s at end" % (
               " and ".join(str(t) for t in meta["threads"]),
               " ".join("%.2f" % x for x in meta["loadavg_start"]),
               " ".join("%.2f" % x for x in meta["loadavg_end"]))]
    for lib in LIBRARIES:
        entry = info.get(lib)
        if entry is None:
            out.append("%s: not run (--peers)" % lib)
        elif not entry.get("available"):
            out.append("%s: MISSING: %s" % (lib, entry["missing"]))
        elif lib == "onednn":
            out.append("oneDNN %s (%s runtime, effective ISA %s)" % (
                entry["version"], entry["runtime"], entry["isa"]))
        elif lib == "openblas":
            out.append("OpenBLAS: %s (kernel %s, %s)" % (
                entry["config"], entry["corename"], entry["parallel"]))
        elif lib == "torch":
            out.append("PyTorch %s: default threads %d (set per row), CPU capability %s, "
                       "MKL-DNN %s, BLAS %s" % (
                           entry["version"], entry["default_threads"],
                           entry["cpu_capability"],
                           "enabled" if entry["mkldnn_enabled"] else "disabled",
                           entry["blas"]))
        else:
            out.append("STREAM: OpenMP %s, arrays of the case's size" % entry["openmp"])
    out.append(build_time.line(meta.get("build_time")))
    out.append("numpy %s (float64 references for the checks only)" % meta["numpy"])
    if meta["dropped_env"]:
        out.append("dropped from the environment: %s" % ", ".join(
            "%s=%s" % kv for kv in sorted(meta["dropped_env"].items())))
    source = "the min" if meta.get("clock", "wall") == "wall" else \
        "the min CPU time at 1 thread (--clock cpu: the calling thread's), the min wall time at N"
    rounds = meta.get("rounds", 1)
    if rounds > 1:
        source += " of each implementation's fastest of %d rounds (taking turns)" % rounds
    out.append("times per call; rate from " + source + "; graft/this = graft's speed over "
               "the peer's (>1: graft faster)")
    return out
