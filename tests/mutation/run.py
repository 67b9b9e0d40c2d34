#!/usr/bin/env python3
"""Mutation testing: do the tests notice a broken compiler or runtime?

Each mutant below is one small edit to graft's sources: a check of the
loader, the validator, the file reader, the executor, the guard or the
watchdog removed; a scalar op, a packed-matmul tile edge or an index stride
changed in codegen; a check of the spec matcher or the rewriter disabled; a
shape rule of the verifier dropped; a fusion legality check of dispatch
formation removed. For each, the script applies the edit to a private copy
of the sources, rebuilds only the targets its tests need in one build
directory shared by all mutants (ccache makes the unchanged files free),
runs those tests, and restores the file. A mutant is KILLED when one of its
tests fails, SURVIVED when all pass: every mutant must be killed, or what
it breaks is untested.

    tests/mutation/run.py [--dir DIR] [--list] [NAME...]

Tests of a mutant, cheapest first:
  unit/NAME    the CTest test unit/NAME (binary target NAME)
  e2e/NAME     the CTest test e2e/NAME (tests/e2e/NAME.sh)
  diff/GRAPH   tests/diff/difftest.py on tests/diff/graphs/GRAPH.graph, two
               rounds on the host target

--dir: where the copy (DIR/src) and its build (DIR/src/build) live (default
build-mutation/ of this checkout; the build sits one level below the copy
like build/ below the checkout, so ccache with CCACHE_BASEDIR finds the
objects of an ordinary build). NAME...: only these mutants. Before the
mutants, the unmutated build must pass every selected test. Exit status 1 if
any mutant was not killed.
"""
import argparse
import collections
import functools
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

Mutant = collections.namedtuple("Mutant", "name path old new tests")

MUTANTS = [
    # --- runtime: loader, validator, file reader, executor, guard, watchdog
    Mutant('relro-not-protected', 'runtime/src/loader/elf_loader.c',
           '  if (plan->has_relro && plan->relro.p_memsz > 0) {\n    /* validate_relro',
           '  if (0) {\n    /* validate_relro',
           ['unit/loader_test']),
    Mutant('relro-outside-writable-load', 'runtime/src/loader/elf_loader.c',
           '  return validate_relro(plan);',
           '  return ((void)validate_relro, NULL);',
           ['unit/loader_test']),
    Mutant('wx-segment-accepted', 'runtime/src/loader/elf_loader.c',
           '  if ((ph->p_flags & GRAFT_PF_W) && (ph->p_flags & GRAFT_PF_X)) {',
           '  if (0) {',
           ['unit/loader_test']),
    Mutant('text-left-writable', 'runtime/src/loader/elf_loader.c',
           '  if (pf_flags & GRAFT_PF_X) prot |= GRAFT_PROT_EXEC;',
           '  if (pf_flags & GRAFT_PF_X) prot |= GRAFT_PROT_EXEC | GRAFT_PROT_WRITE;',
           ['unit/loader_test']),
    Mutant('copy-into-read-only', 'runtime/src/loader/library_validate.c',
           '    if (read_only_role(f, s->bindings[1], role, sizeof(role))) {',
           '    if (0) {',
           ['unit/loader_test', 'unit/graft_executor_test']),
    Mutant('dispatch-writes-read-only', 'runtime/src/loader/library_validate.c',
           '    if (!(attrs->binding_flags[b] & GRAFT_BINDING_WRITE)) continue;',
           '    continue;',
           ['unit/loader_test']),
    Mutant('binding-index-unchecked', 'runtime/src/loader/library_validate.c',
           '    if (s->bindings[b] >= f->buffer_count) {',
           '    if (0) {',
           ['unit/loader_test']),
    Mutant('step-counts-unchecked', 'runtime/src/loader/library_validate.c',
           '  if (s->binding_count != attrs->binding_count ||\n      s->constant_count != attrs->constant_count) {',
           '  if (0) {',
           ['unit/loader_test']),
    Mutant('required-imports-ignored', 'runtime/src/exec/import_table.c',
           '  graft_status_t st = graft_library_check_imports(library, table->functions);',
           '  graft_status_t st = NULL;',
           ['unit/graft_plugin_test']),
    Mutant('special-files-read', 'runtime/src/io/file.c',
           '  if (!S_ISREG(st.st_mode)) {',
           '  if (0) {',
           ['unit/graft_io_test']),
    Mutant('argument-storage-unchecked', 'runtime/src/exec/executor.c',
           '    if (t->size < needed || (needed && !t->data))',
           '    if (0)',
           ['unit/graft_executor_test']),
    Mutant('guard-inputs-writable', 'runtime/src/exec/executor.c',
           '    st = graft_guard_region_seal(r);',
           '    st = NULL;',
           ['e2e/run_guard']),
    Mutant('guard-canary-unchecked', 'runtime/src/exec/executor.c',
           '  return inv->regions ? graft_guard_check_dispatch(&watch) : NULL;',
           '  return NULL;',
           ['e2e/run_guard']),
    Mutant('deadline-does-not-stop-workgroups', 'runtime/src/exec/executor.c',
           '  if (run->watchdog && graft_watchdog_expired(run->watchdog)) return -1;',
           '',
           ['unit/graft_module_test']),
    Mutant('ubsan-finding-ignored', 'runtime/src/exec/executor.c',
           '  if (finding.check) {',
           '  if (0) {',
           ['unit/graft_executor_test', 'e2e/run_ubsan']),
    Mutant('ubsan-fatal-check-returns', 'runtime/src/exec/ubsan.c',
           '  if (fatal) longjmp(frame->exit, 1);',
           '',
           ['unit/graft_executor_test', 'e2e/run_ubsan']),
    Mutant('ubsan-reporter-not-installed', 'runtime/src/exec/api.c',
           '    install(graft_ubsan_report);',
           '',
           ['e2e/run_ubsan']),
    # --- codegen: scalar ops, the packed matmul's tile edge, index strides
    Mutant("sub-emitted-as-add", "lib/codegen/ScalarOps.cpp",
           "  case OpKind::Sub: return fl ? b.CreateFSub(o[0], o[1])",
           "  case OpKind::Sub: return fl ? b.CreateFAdd(o[0], o[1])",
           ["diff/map_f32"]),
    Mutant("int-div-truncates", "lib/codegen/ScalarOps.cpp",
           "  Value *floorDiv = b.CreateSelect(adjust, b.CreateSub(q, one), q);",
           "  Value *floorDiv = q;",
           ["diff/map_i32"]),
    Mutant("cmp-le-emitted-as-lt", "lib/codegen/ScalarOps.cpp",
           '      if (pred == "le") return b.CreateFCmpOLE(o[0], o[1]);',
           '      if (pred == "le") return b.CreateFCmpOLT(o[0], o[1]);',
           ["diff/map_f32"]),
    Mutant("max-of-zeros-unsigned", "lib/codegen/ScalarOps.cpp",
           "  Value *zeros = max ? b.CreateFAdd(x, y)",
           "  Value *zeros = max ? x",
           ["diff/special_values"]),
    Mutant("ragged-rhs-panel-not-packed", "lib/codegen/PackedMatmul.cpp",
           "  Value *lastCol = b.CreateSub(rem, b.getInt64(1));\n"
           "  Value *kEnd = b.CreateSelect(b.CreateICmpSGT(rem, b.getInt64(0)), kc, b.getInt64(0));",
           "  Value *lastCol = b.CreateSub(rem, b.getInt64(1));\n"
           "  Value *kEnd = b.getInt64(0);",
           ["diff/matmul_tiles"]),
    Mutant("load-uses-outer-stride", "lib/codegen/LoopEmitter.cpp",
           "b_.CreateMul(idx_[in.map[k]], strides_[node.input][k]",
           "b_.CreateMul(idx_[in.map[k]], strides_[node.input][0]",
           ["diff/transpose", "diff/map_f32"]),
    # --- the spec matcher and rewriter
    Mutant("matcher-op-kind-unchecked", "lib/spec/Matcher.cpp",
           "  if (p->kind != g->kind)\n    return failAt(g, p, \"op kind mismatch",
           "  if (false)\n    return failAt(g, p, \"op kind mismatch",
           ["unit/spec_matcher_test"]),
    Mutant("matcher-attribute-value-unchecked", "lib/spec/Matcher.cpp",
           "    if (!(*ga == pa.value))",
           "    if (false)",
           ["unit/spec_matcher_test"]),
    Mutant("matcher-binding-conflict-accepted", "lib/spec/Matcher.cpp",
           "    if (it->second != g)\n      return failAt(user, patternUser, \"conflicting",
           "    if (false)\n      return failAt(user, patternUser, \"conflicting",
           ["unit/spec_matcher_test"]),
    Mutant("matcher-operands-reversed", "lib/spec/Matcher.cpp",
           "      Value *gv = gOperands[i];",
           "      Value *gv = gOperands[gOperands.size() - 1 - i];",
           ["unit/spec_matcher_test"]),
    Mutant("rewriter-drops-op-used-outside", "lib/spec/Rewriter.cpp",
           "    if (!used)\n      dropped.insert(op);",
           "    if (!used || true)\n      dropped.insert(op);",
           ["unit/spec_matcher_test"]),
    Mutant("rewriter-accepts-output-used-early", "lib/spec/Rewriter.cpp",
           "      if (early) {\n        f.why = \"output \"",
           "      if (false) {\n        f.why = \"output \"",
           ["unit/spec_matcher_test"]),
    # --- shape analysis: the verifier's size rules
    Mutant("reshape-count-unchecked", "lib/graph/VerifyTensorOps.cpp",
           "    if (a != b)\n      return fail(\"'reshape' changes",
           "    if (false)\n      return fail(\"'reshape' changes",
           ["unit/graph_verifier_test"]),
    Mutant("broadcast-size-unchecked", "lib/graph/VerifyTensorOps.cpp",
           "    if (!dimsCompatible(in.dims[i], out.dims[j]))\n      return fail(\"'broadcast' input",
           "    if (false)\n      return fail(\"'broadcast' input",
           ["unit/graph_verifier_test"]),
    # --- dispatch formation: fusion legality
    Mutant("row-stat-fused-into-non-pointwise-group", "lib/dispatch/Formation.cpp",
           "    return inGroup ? pointwiseGroup(g) : availableIn(in, g);",
           "    return inGroup ? true : availableIn(in, g);",
           ["diff/row_stats", "diff/softmax", "diff/fusion_edges"]),
    Mutant("fill-absorbed-with-other-users", "lib/dispatch/Formation.cpp",
           "  if (users.size() != 1)\n    return false;",
           "",
           ["diff/fusion_edges"]),
]


def run(cmd, timeout=None, **kwargs):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", timeout=timeout, **kwargs)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return 124, out + f"\n(timed out after {timeout}s)"


def copy_sources(dest):
    """The checkout's tracked files (as they are in the work tree) into |dest|.
    A file whose copy already has its bytes is left alone; any other is
    written anew. Never with the original's time: a file restored after a
    mutant of an earlier run is newer than the object built from the mutant,
    and must stay so for ninja to rebuild it."""
    _, listing = run(["git", "-C", ROOT, "ls-files", "-z"])
    for f in listing.split("\0"):
        src, dst = os.path.join(ROOT, f), os.path.join(dest, f)
        if not f or not os.path.isfile(src):
            continue
        with open(src, "rb") as a:
            data = a.read()
        if os.path.isfile(dst):
            with open(dst, "rb") as b:
                if b.read() == data:
                    continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as b:
            b.write(data)
        shutil.copymode(src, dst)


@functools.lru_cache(maxsize=None)
def python_with_numpy():
    """A python3 that has numpy, as the e2e tests pick one (a pyenv shim
    first on PATH may not have it)."""
    for p in [os.environ.get("PYTHON"), "/usr/bin/python3", shutil.which("python3"),
              sys.executable]:
        if p and run([p, "-c", "import numpy"])[0] == 0:
            return p
    sys.exit("run.py: no python3 with numpy for the differential tests (set PYTHON)")


class Tree:
    """The private copy, its build directory and how to run a test in it."""

    def __init__(self, top):
        self.src = os.path.join(top, "src")
        self.build = os.path.join(self.src, "build")
        # The copy and the build of an earlier run are reused: only what
        # changed since is rewritten and rebuilt.
        copy_sources(self.src)
        launcher = ["-DCMAKE_C_COMPILER_LAUNCHER=ccache",
                    "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []
        rc, out = run(["cmake", "-S", self.src, "-B", self.build, "-G", "Ninja",
                       "-DGRAFT_WERROR=ON", "-DGRAFT_CROSS_RUNTIMES=ON"] + launcher)
        if rc != 0:
            sys.exit("run.py: configure failed:\n" + out[-3000:])

    def targets(self, tests):
        """The build targets |tests| need: for a unit test, every file of the
        build its command names (the binary, the plugins it loads, ...)."""
        names = set()
        for t in tests:
            kind, name = t.split("/", 1)
            if kind == "unit":
                names.update(self.unit_files(name))
            else:
                names.update(["graft", "graft-run"])
            if kind == "e2e":
                # The e2e scripts also run other targets' slices under qemu.
                names.update(["graft-fatelf", "graft_invoke_repeat_check"] +
                             self.cross_runtimes())

        return sorted(names)

    @functools.lru_cache(maxsize=None)
    def cross_runtimes(self):
        _, out = run(["ninja", "-C", self.build, "-t", "targets", "all"])
        return sorted({line.split(":")[0] for line in out.splitlines()
                       if line.startswith("graft-run-") and ":" in line})

    def unit_files(self, name):
        test = self.unit_test(name)
        if "command" not in test:
            # CTest lists no command while the test's binary (target NAME)
            # is not built yet, as in a fresh build directory: build it,
            # then ask again for the other files the command names.
            rc, out = run(["nice", "-n", "10", "ninja", "-C", self.build, "-j2", name])
            if rc != 0:
                sys.exit(f"run.py: cannot build {name} for unit/{name}:\n" + out[-3000:])
            test = self.unit_test(name)
        prefix = self.build + os.sep
        return [os.path.relpath(arg, self.build) for arg in test.get("command", [])
                if arg.startswith(prefix)]

    def unit_test(self, name):
        """CTest's JSON description of the test unit/|name|."""
        rc, out = run(["ctest", "--test-dir", self.build, "-R", f"^unit/{name}$",
                       "--show-only=json-v1"])
        tests = json.loads(out[out.index("{"):]).get("tests", []) if rc == 0 else []
        if len(tests) != 1:
            sys.exit(f"run.py: no CTest test unit/{name} in {self.build}")
        return tests[0]

    def make(self, tests):
        return run(["nice", "-n", "10", "ninja", "-C", self.build, "-j2"] + self.targets(tests))

    def test(self, t):
        """(passed, log) of one test."""
        kind, name = t.split("/", 1)
        if kind in ("unit", "e2e"):
            rc, out = run(["ctest", "--test-dir", self.build, "-R", f"^{kind}/{name}$",
                           "--output-on-failure", "--timeout", "600", "--no-tests=error"])
        elif kind == "diff":
            env = dict(os.environ, BIN=self.build)
            rc, out = run(["nice", "-n", "10", python_with_numpy(),
                           os.path.join(self.src, "tests/diff/difftest.py"),
                           "--graft", os.path.join(self.build, "cmd/graft/graft"),
                           "--graft-run", os.path.join(self.build, "cmd/graft-run/graft-run"),
                           "--graph", name + ".graph", "--rounds", "2", "-j", "1",
                           "--keep-dir", os.path.join(self.build, "difftest-failures")],
                          timeout=900, env=env)
        else:
            sys.exit(f"run.py: unknown test kind '{t}' (expected unit/, e2e/ or diff/)")
        return rc == 0, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", default=os.path.join(ROOT, "build-mutation"))
    parser.add_argument("--list", action="store_true", help="print the mutants and exit")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    known = {m.name for m in MUTANTS}
    for name in args.names:
        if name not in known:
            sys.exit(f"run.py: no mutant '{name}' (expected one of: {', '.join(sorted(known))})")
    chosen = [m for m in MUTANTS if not args.names or m.name in args.names]
    if args.list:
        for m in chosen:
            print(f"{m.name:40} {m.path:36} {' '.join(m.tests)}")
        return 0

    os.environ.setdefault("CCACHE_BASEDIR", os.path.dirname(ROOT))
    os.environ.setdefault("CCACHE_NOHASHDIR", "1")
    tree = Tree(os.path.abspath(args.dir))
    kinds = {"unit": 0, "e2e": 1, "diff": 2}  # cheapest first
    every = sorted({t for m in chosen for t in m.tests},
                   key=lambda t: (kinds.get(t.split("/")[0], 3), t))
    rc, out = tree.make(every)
    if rc != 0:
        sys.exit("run.py: the unmutated sources do not build:\n" + out[-3000:])
    for t in every:
        ok, out = tree.test(t)
        if not ok:
            sys.exit(f"run.py: {t} fails without a mutant:\n{out[-3000:]}")

    results = []
    for m in chosen:
        file = os.path.join(tree.src, m.path)
        with open(file) as f:
            text = f.read()
        start = time.monotonic()
        if text.count(m.old) != 1:
            results.append((m, "STALE", f"the text to mutate is not in {m.path} exactly once", 0))
            print(f"STALE     {m.name}: the text to mutate is not in {m.path} exactly once",
                  flush=True)
            continue
        with open(file, "w") as f:
            f.write(text.replace(m.old, m.new))
        try:
            rc, out = tree.make(m.tests)
            if rc != 0:
                status, why = "BROKEN", "the mutant does not build"
            else:
                status, why = "SURVIVED", "every test passed: " + " ".join(m.tests)
                for t in m.tests:
                    ok, _ = tree.test(t)
                    if not ok:
                        status, why = "KILLED", "by " + t
                        break
        finally:
            with open(file, "w") as f:
                f.write(text)
        took = time.monotonic() - start
        results.append((m, status, why, took))
        print(f"{status:9} {m.name} ({why}; {took:.0f}s)", flush=True)

    print()
    print(f"| mutant | file | tests | result | seconds |")
    print(f"|---|---|---|---|---|")
    for m, status, why, took in results:
        print(f"| {m.name} | {m.path} | {' '.join(m.tests)} | {status.lower()} | {took:.0f} |")
    bad = [m.name for m, status, _, _ in results if status != "KILLED"]
    if bad:
        print(f"run.py: {len(bad)} mutant(s) not killed: {', '.join(bad)}")
        return 1
    print(f"run.py: all {len(results)} mutants were killed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
