#!/usr/bin/env bash
# Installs the libraries tests/bench compares graft with (Debian 12
# packages), on top of graft's own dependencies:
#
#   libdnnl-dev      oneDNN 2.6: dnnl_sgemm and the matmul primitive
#   libopenblas-dev  OpenBLAS 0.3.21: cblas_sgemm (pthread flavour)
#   python3-torch    PyTorch 1.13 eager, run with /usr/bin/python3
#
# Kept apart from cmake/install-deps.sh's default set so that CI's test run
# (bench/smoke, which needs none of the peers) does not download PyTorch.
# After installing, reconfigure the build (cmake -S . -B build) so that
# graft_bench links oneDNN and OpenBLAS.
#
# Note: installing OpenBLAS makes it Debian's default libblas.so.3 (update-
# alternatives), so numpy then uses it too. The benchmark does not depend on
# that choice: graft_bench links OpenBLAS directly, and the PyTorch peer runs
# with OpenBLAS's directory first on LD_LIBRARY_PATH (see README.md).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec bash "$root/cmake/install-deps.sh" libdnnl-dev libopenblas-dev python3-torch
