"""Facts about the machine and the build for run_bench.py's header: the
host's graft target, CPU model, ISA features and cores, graft's revision and
the CPU level graft compiles for."""
import os
import platform
import re
import subprocess


def host_target():
    machine = platform.machine()
    return {"x86_64": "x86_64", "AMD64": "x86_64", "aarch64": "aarch64",
            "arm64": "aarch64", "riscv64": "riscv64"}.get(machine, machine)


# ISA features worth a line in the header, per architecture, in the order
# they are printed (/proc/cpuinfo's names).
ISA_FLAGS = ["sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512dq", "avx512bw",
             "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile",
             "asimd", "asimdhp", "asimddp", "sve", "sve2", "i8mm", "bf16", "rvv", "v"]


def cpu_info():
    """Model, ISA features and core counts from /proc/cpuinfo and sysfs."""
    model, flags, cores = platform.processor() or platform.machine(), set(), set()
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
    except OSError:
        text = ""
    for key in ("model name", "Model Name", "uarch", "CPU part"):
        m = re.search(r"^%s\s*:\s*(.+)$" % key, text, re.M)
        if m:
            model = m.group(1).strip()
            break
    for key in ("flags", "Features", "isa"):
        m = re.search(r"^%s\s*:\s*(.+)$" % key, text, re.M)
        if m:
            flags = set(m.group(1).split())
            break
    for cpu in os.sched_getaffinity(0):
        try:
            with open("/sys/devices/system/cpu/cpu%d/topology/core_id" % cpu) as f:
                core = f.read().strip()
            with open("/sys/devices/system/cpu/cpu%d/topology/physical_package_id"
                      % cpu) as f:
                cores.add((f.read().strip(), core))
        except OSError:
            cores.add(("?", str(cpu)))
    hypervisor = "hypervisor" in flags
    return {"model": model, "isa": [f for f in ISA_FLAGS if f in flags],
            "logical_cpus": len(os.sched_getaffinity(0)), "cores": len(cores),
            "virtual_machine": hypervisor}


def git_revision(repo):
    try:
        rev = subprocess.run(["git", "-C", repo, "describe", "--always", "--dirty"],
                             capture_output=True, text=True, timeout=10)
        return rev.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def graft_target_line(graft):
    """`graft targets`' line for the host: the CPU and vector width graft
    compiles for (not what this machine could do)."""
    proc = subprocess.run([graft, "targets"], capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.split() and line.split()[0] == host_target():
            return " ".join(line.split())
    return host_target()
