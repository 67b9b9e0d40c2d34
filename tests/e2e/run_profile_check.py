"""Checks a graft-run --profile trace (Chrome trace-event JSON) against the
dispatches that graft-run --trace listed for the same call.

  run_profile_check.py PROFILE.json TRACE.txt THREADS CALLS

TRACE.txt holds graft-run --trace's lines "[trace] f: NAME (src) grid AxBxC
...". Checks: one track per thread; CALLS call spans on thread 0; in every
call, thread 0's dispatch spans are the traced dispatches in order, each
inside its call; a worker's dispatch span lies inside thread 0's span of
that dispatch run; every chunk lies inside its thread's span of its
dispatch run; the chunks of a run cover its grid's workgroups exactly once.
"""
import json
import re
import sys

EPS = 1e-6  # the file writes exact ns as us with three decimals


def inside(inner, outer):
    return (outer["ts"] - EPS <= inner["ts"] and
            inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] + EPS)


def main():
    path, trace_path, threads, calls = sys.argv[1:5]
    threads, calls = int(threads), int(calls)
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    expected = []
    for line in open(trace_path):
        m = re.match(r"\[trace\] \w+: (\S+) .*grid (\d+)x(\d+)x(\d+)", line)
        if m:
            grid = int(m.group(2)) * int(m.group(3)) * int(m.group(4))
            expected.append((m.group(1), grid))
    assert len(expected) >= 2, f"want several dispatches, traced {expected}"

    tracks = [e for e in events if e["ph"] == "M" and e["name"] == "thread_name"]
    assert sorted(e["tid"] for e in tracks) == list(range(threads)), tracks
    spans = [e for e in events if e["ph"] == "X"]
    call_spans = [e for e in spans if e["cat"] == "call"]
    assert len(call_spans) == calls, f"{len(call_spans)} calls, want {calls}"
    assert all(e["tid"] == 0 for e in call_spans)

    runs = {}  # (call, position) -> thread 0's dispatch span
    for call in range(calls):
        mine = [e for e in spans if e["cat"] == "dispatch" and e["tid"] == 0
                and e["args"]["call"] == call]
        names = [e["name"] for e in mine]
        assert names == [n for n, _ in expected], \
            f"call {call}: dispatches {names}, want {expected}"
        for pos, (e, (_, grid)) in enumerate(zip(mine, expected)):
            assert inside(e, call_spans[call]), (e, call_spans[call])
            assert e["args"]["workgroups"] == grid, (e, grid)
            runs[(call, pos)] = e

    # Each run's worker spans and chunks, in time order within a call.
    checked = 0
    for (call, pos), run in runs.items():
        def of_run(e):
            return (e["args"]["call"] == call and e["name"] == run["name"] and
                    inside(e, run))
        workers = {e["tid"]: e for e in spans
                   if e["cat"] == "dispatch" and e["tid"] != 0 and of_run(e)}
        chunks = [e for e in spans if e["cat"] == "chunk" and of_run(e)]
        covered = set()
        for c in chunks:
            assert c["tid"] < threads
            owner = run if c["tid"] == 0 else workers.get(c["tid"])
            assert owner is not None and inside(c, owner), (c, owner)
            first, count = c["args"]["first_workgroup"], c["args"]["workgroups"]
            assert count > 0
            ids = set(range(first, first + count))
            assert not ids & covered, f"workgroups run twice in {run}"
            covered |= ids
        assert covered == set(range(run["args"]["workgroups"])), \
            f"call {call} {run['name']}: chunks cover {len(covered)} of " \
            f"{run['args']['workgroups']} workgroups"
        checked += len(chunks)
    print(f"ok: {calls} calls, {len(expected)} dispatches each, "
          f"{checked} chunks on {threads} thread(s)")


main()
