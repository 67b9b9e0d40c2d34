"""Result comparison of the differential test: integers exactly, floats
within atol + rtol * |expected| with NaN, infinities and the sign of zero
compared exactly."""

import numpy as np

# Default float tolerances: |got - ref| <= atol + rtol * |ref|.
DEFAULT_TOL = {"f16": (1e-2, 1e-2), "f32": (1e-5, 1e-5), "f64": (1e-12, 1e-12)}


def compare(ref, got, elem_tol):
    """Returns (ok, message, max_abs_err, max_rel_err)."""
    if ref.shape != got.shape:
        return False, f"shape differs: got {got.shape}, expected {ref.shape}", 0, 0
    if ref.dtype != got.dtype:
        return False, f"dtype differs: got {got.dtype}, expected {ref.dtype}", 0, 0
    if ref.size == 0:
        return True, "", 0, 0
    if not np.issubdtype(ref.dtype, np.floating):
        bad = np.argwhere(ref != got)
        if len(bad):
            i = tuple(bad[0])
            return (False, f"{len(bad)} of {ref.size} elements differ; first at "
                    f"{list(i)}: got {got[i]}, expected {ref[i]}", 0, 0)
        return True, "", 0, 0
    atol, rtol = elem_tol
    r, g = ref.astype(np.float64), got.astype(np.float64)
    nan_r, nan_g = np.isnan(r), np.isnan(g)
    same_inf = np.isinf(r) & (r == g)
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, inf / inf
        err = np.where(nan_r | nan_g | same_inf, 0.0, np.abs(g - r))
        rel = err / np.maximum(np.abs(r), np.finfo(np.float64).tiny)
        bad = (nan_r != nan_g) | (np.isinf(r) & ~same_inf) | (err > atol + rtol * np.abs(r))
        # The sign of an exact zero is part of the result (max/min order -0
        # below +0; neg and mul produce -0).
        bad |= (r == 0) & (g == 0) & (np.signbit(r) != np.signbit(g))
    bad &= ~(nan_r & nan_g)
    max_abs = float(np.max(err))
    max_rel = float(np.max(np.where(np.abs(r) > atol, rel, 0.0)))
    if bad.any():
        i = tuple(np.argwhere(bad)[0])
        return (False, f"{int(bad.sum())} of {ref.size} elements differ; first at "
                f"{list(i)}: got {g[i]!r}, expected {r[i]!r} (atol {atol}, rtol {rtol}); "
                f"max abs error {max_abs:.3g}", max_abs, max_rel)
    return True, "", max_abs, max_rel


def tolerance(dtype, header):
    """(atol, rtol) for results of |dtype|; a graph's diff-tol overrides."""
    atol, rtol = DEFAULT_TOL.get(np.dtype(dtype).name.replace("float", "f"), (0, 0))
    return header["tol"].get("atol", atol), header["tol"].get("rtol", rtol)
