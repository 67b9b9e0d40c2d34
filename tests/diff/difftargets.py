"""The registered targets and how to run graft-run for each one.

Reads `graft targets --format=tsv` (targets/Describe.h): the host target runs
graft-run natively, every other target runs its cross-built graft-run
(<cross dir>/<target>/graft-run) under the target's qemu-user binary.
"""
import os
import subprocess


class Target:
    def __init__(self, name, host, qemu):
        self.name, self.host, self.qemu = name, host, qemu


def targets(graft):
    """Every registered target, in registry order."""
    out = subprocess.run([graft, "targets", "--format=tsv"], check=True,
                         capture_output=True, text=True).stdout
    result = []
    for line in out.splitlines():
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        if fields[0] == "target":
            result.append(Target(fields[1], fields[2] == "1", fields[3]))
    return result


def runner(graft, graft_run, cross_dir, name):
    """The command prefix that runs graft-run for target |name|; raises
    ValueError when graft does not know it or its cross build is missing."""
    for t in targets(graft):
        if t.name != name:
            continue
        if t.host:
            return [graft_run]
        cross = os.path.join(cross_dir, name, "graft-run")
        if not os.access(cross, os.X_OK):
            raise ValueError(f"no {name} graft-run at '{cross}' (build it: ninja graft-run-{name})")
        return [t.qemu, cross]
    raise ValueError(f"graft has no target '{name}'")
