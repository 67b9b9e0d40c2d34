#!/usr/bin/env python3
"""Picks the few inputs of a grown corpus worth checking in as seeds.

    tests/fuzz/pick_seeds.py FUZZER GROWN [--count N] [--max-bytes B] [--copy]

FUZZER is a libFuzzer binary of build-fuzz/ (its name names the seed
directory tests/fuzz/corpus/<name>/), GROWN the corpus a long run grew
(cmake/fuzz.sh --corpus DIR keeps it in DIR/<name>/). The seeds stay lean:
a merge with the seeds first tells which features each grown input adds
beyond the seeds and the smaller inputs; the script then picks, greedily,
the input of at most B bytes that adds the most features not yet covered,
N times. It prints each pick (path, features added, bytes); with --copy it
copies them to the seed directory as grown_<hash12><extension of the seeds>.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def merge_features(fuzzer, seeds, grown, work):
    """{path: features it adds} from a merge whose initial corpus is a copy
    of |seeds| (so the seeds' features count as covered)."""
    out = os.path.join(work, "out")
    shutil.copytree(seeds, out)
    control = os.path.join(work, "control")
    env = dict(os.environ, ASAN_OPTIONS="allocator_may_return_null=1:"
               "max_allocation_size_mb=1024:detect_leaks=0")
    p = subprocess.run([fuzzer, "-merge=1", f"-merge_control_file={control}", out, grown],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    if p.returncode != 0:
        sys.exit(f"pick_seeds.py: the merge failed:\n{p.stdout[-2000:]}")
    # Control file: the file count, the initial corpus' count, the paths,
    # then per file 'FT index features...' (the features new at that file).
    lines = open(control).read().split("\n")
    count = int(lines[0])
    paths = lines[2:2 + count]
    added = {}
    for line in lines[2 + count:]:
        fields = line.split()
        if len(fields) >= 2 and fields[0] == "FT":
            added[paths[int(fields[1])]] = set(fields[2:])
    grown_dir = os.path.abspath(grown)
    return {p: f for p, f in added.items() if os.path.dirname(os.path.abspath(p)) == grown_dir}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("fuzzer")
    parser.add_argument("grown")
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--max-bytes", type=int, default=2048)
    parser.add_argument("--copy", action="store_true")
    args = parser.parse_args()
    name = os.path.basename(args.fuzzer)
    seeds = os.path.join(ROOT, "tests", "fuzz", "corpus", name)
    if not os.path.isdir(seeds):
        sys.exit(f"pick_seeds.py: no seed directory {seeds} for fuzzer '{name}'")
    with tempfile.TemporaryDirectory() as work:
        added = merge_features(args.fuzzer, seeds, args.grown, work)
    candidates = {p: f for p, f in added.items() if os.path.getsize(p) <= args.max_bytes}
    extensions = {os.path.splitext(f)[1] for f in os.listdir(seeds)} - {""}
    extension = extensions.pop() if len(extensions) == 1 else ""
    covered = set()
    for _ in range(args.count):
        best = max(candidates, default=None,
                   key=lambda p: (len(candidates[p] - covered), -os.path.getsize(p)))
        if best is None or not candidates[best] - covered:
            break
        print(best, len(candidates[best] - covered), os.path.getsize(best))
        covered |= candidates.pop(best)
        if args.copy:
            shutil.copy(best, os.path.join(seeds, "grown_" + os.path.basename(best)[:12] + extension))


if __name__ == "__main__":
    main()
