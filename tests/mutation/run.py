#!/usr/bin/env python3
"""Mutation testing of the runtime's protections (on demand, not in CI).

Each mutant below removes one check of the loader, the validator, the file
reader or the executor. For each, the script applies the edit to a private
copy of the sources, rebuilds the runtime there (runtime-only build, no
LLVM: seconds per mutant with ccache) and runs the tests that are supposed
to notice. A mutant is KILLED when one of them fails, SURVIVED when all
pass; every mutant must be killed, or the check it removes is untested.

    tests/mutation/run.py [--build-dir DIR] [--graft PATH] [NAME...]

--graft: a graft compiler for the e2e scripts some mutants need (default:
build/cmd/graft/graft of this checkout); those mutants are reported SKIPPED
without one. NAME...: only these mutants. Exit status 1 if any survived.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (name, file, exact text, replacement, ctest regex or None, e2e scripts)
MUTANTS = [
    ("relro-not-protected", "runtime/src/loader/elf_loader.c",
     "  if (plan->has_relro && plan->relro.p_memsz > 0) {\n    /* validate_relro",
     "  if (0) {\n    /* validate_relro",
     "unit/loader_test$", []),
    ("relro-outside-writable-load", "runtime/src/loader/elf_loader.c",
     "  return validate_relro(plan);", "  return NULL;",
     "unit/loader_test$", []),
    ("wx-segment-accepted", "runtime/src/loader/elf_loader.c",
     "  if ((ph->p_flags & GRAFT_PF_W) && (ph->p_flags & GRAFT_PF_X)) {",
     "  if (0) {",
     "unit/loader_test$", []),
    ("text-left-writable", "runtime/src/loader/elf_loader.c",
     "  if (pf_flags & GRAFT_PF_X) prot |= GRAFT_PROT_EXEC;",
     "  if (pf_flags & GRAFT_PF_X) prot |= GRAFT_PROT_EXEC | GRAFT_PROT_WRITE;",
     "unit/loader_test$", []),
    ("copy-into-read-only", "runtime/src/loader/library_validate.c",
     "    if (read_only_role(f, s->bindings[1], role, sizeof(role))) {",
     "    if (0) {",
     "unit/(loader_test|graft_executor_test)$", []),
    ("dispatch-writes-read-only", "runtime/src/loader/library_validate.c",
     "    if (!(attrs->binding_flags[b] & GRAFT_BINDING_WRITE)) continue;",
     "    continue;",
     "unit/loader_test$", []),
    ("binding-index-unchecked", "runtime/src/loader/library_validate.c",
     "    if (s->bindings[b] >= f->buffer_count) {",
     "    if (0) {",
     "unit/loader_test$", []),
    ("step-counts-unchecked", "runtime/src/loader/library_validate.c",
     "  if (s->binding_count != attrs->binding_count ||\n"
     "      s->constant_count != attrs->constant_count) {",
     "  if (0) {",
     "unit/loader_test$", []),
    ("required-imports-ignored", "runtime/src/exec/import_table.c",
     "  graft_status_t st = graft_library_check_imports(library, table->functions);",
     "  graft_status_t st = NULL;",
     "unit/graft_plugin_test$", []),
    ("special-files-read", "runtime/src/io/file.c",
     "  if (!S_ISREG(st.st_mode)) {", "  if (0) {",
     "unit/graft_io_test$", []),
    ("argument-storage-unchecked", "runtime/src/exec/executor.c",
     "    if (t->size < needed || (needed && !t->data))",
     "    if (0)",
     "unit/graft_executor_test$", []),
    ("guard-inputs-writable", "runtime/src/exec/executor.c",
     "    st = graft_guard_region_seal(r);", "    st = NULL;",
     None, ["run_guard"]),
    ("guard-canary-unchecked", "runtime/src/exec/executor.c",
     "  return inv->regions ? graft_guard_check_dispatch(&watch) : NULL;",
     "  return NULL;",
     None, ["run_guard"]),
    ("deadline-does-not-stop-workgroups", "runtime/src/exec/executor.c",
     "  if (run->watchdog && graft_watchdog_expired(run->watchdog)) return -1;",
     "",
     "unit/graft_module_test$", []),
]


def run(cmd, **kwargs):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kwargs)


def copy_sources(dest):
    files = run(["git", "-C", ROOT, "ls-files", "-z"]).stdout.split("\0")
    for f in files:
        if not f or not os.path.isfile(os.path.join(ROOT, f)):
            continue
        os.makedirs(os.path.join(dest, os.path.dirname(f)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(dest, f))


def e2e_env(src, build, graft):
    env = dict(os.environ)
    env.update(GRAFT=graft, GRAFT_RUN=os.path.join(build, "cmd/graft-run/graft-run"),
               SRC=src, BIN=build,
               FILECHECK=shutil.which("FileCheck-19") or "/usr/lib/llvm-19/bin/FileCheck")
    return env


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build-mutation"))
    parser.add_argument("--graft", default=os.path.join(ROOT, "build/cmd/graft/graft"))
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    known = {m[0] for m in MUTANTS}
    for name in args.names:
        if name not in known:
            sys.exit(f"run.py: no mutant '{name}' (expected one of: {', '.join(sorted(known))})")

    src = tempfile.mkdtemp(prefix="graft-mutation-")
    build = args.build_dir
    copy_sources(src)
    configure = run(["cmake", "-S", src, "-B", build, "-G", "Ninja",
                     "-DGRAFT_BUILD_COMPILER=OFF", "-DGRAFT_CROSS_RUNTIMES=OFF",
                     "-DGRAFT_WERROR=OFF"])
    if configure.returncode != 0:
        sys.exit("run.py: configure failed:\n" + configure.stdout[-3000:])

    def build_and_test(regex, scripts):
        b = run(["ninja", "-C", build, "-j2"])
        if b.returncode != 0:
            return "build failed", b.stdout[-2000:]
        if regex:
            t = run(["ctest", "--test-dir", build, "-R", regex])
            if t.returncode != 0:
                return "failed", t.stdout
        for script in scripts:
            t = run(["bash", os.path.join(src, "tests/e2e/lib/run-one.sh"),
                     os.path.join(src, "tests/e2e", script + ".sh")],
                    env=e2e_env(src, build, args.graft))
            if t.returncode != 0:
                return "failed", t.stdout
        return "passed", ""

    status, log = build_and_test(r"unit/(loader_test|graft_(io|executor|module|plugin)_test)$", [])
    if status != "passed":
        sys.exit(f"run.py: the unmutated runtime's tests {status}:\n{log[-3000:]}")

    survived = []
    for name, path, old, new, regex, scripts in MUTANTS:
        if args.names and name not in args.names:
            continue
        if scripts and not os.access(args.graft, os.X_OK):
            print(f"SKIPPED   {name} (needs a graft compiler for {', '.join(scripts)})")
            continue
        file = os.path.join(src, path)
        with open(file) as f:
            text = f.read()
        if text.count(old) != 1:
            print(f"STALE     {name}: the text to mutate is not in {path} exactly once")
            survived.append(name)
            continue
        with open(file, "w") as f:
            f.write(text.replace(old, new))
        try:
            status, _ = build_and_test(regex, scripts)
        finally:
            with open(file, "w") as f:
                f.write(text)
        if status == "passed":
            survived.append(name)
            print(f"SURVIVED  {name} ({path})")
        elif status == "build failed":
            survived.append(name)
            print(f"BROKEN    {name}: the mutant does not build")
        else:
            print(f"KILLED    {name} (tests {status})")
    shutil.rmtree(src)
    if survived:
        print(f"run.py: {len(survived)} mutant(s) not killed: {', '.join(survived)}")
        return 1
    print("run.py: every mutant was killed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
