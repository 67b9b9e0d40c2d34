#!/usr/bin/env python3
"""Prints the Chebyshev coefficients of graft's inline erf (lib/codegen/
MathFunctions.cpp, kErfPieces), computed with mpmath at 50 digits.

erf(x) for x >= 0 is taken in three pieces, each a Chebyshev series of
degree 20 in u = (2x - a - b) / (b - a) over its interval [a, b]:
  [0, 1]:   erf(x) = x * F(x),             F(x) = erf(x) / x
  [1, 2.5]: erf(x) = 1 - exp(-x^2) * G(x), G(x) = erfc(x) * exp(x^2)
  [2.5, 6]: the same G
(past 6, erf(x) is 1 in f64). The coefficients come from interpolation at
the 21 Chebyshev nodes; run this script to regenerate the table."""

import mpmath as mp

mp.mp.dps = 50
DEGREE = 20


def f_small(x):
    return mp.erf(x) / x if x != 0 else 2 / mp.sqrt(mp.pi)


def g_large(x):
    return mp.erfc(x) * mp.exp(x * x)


def chebyshev(f, a, b, n):
    count = n + 1
    nodes = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / count) for k in range(count)]
    values = [f((mp.mpf(b) - a) / 2 * t + (mp.mpf(b) + a) / 2) for t in nodes]
    coeffs = []
    for j in range(count):
        s = sum(values[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / count) for k in range(count))
        coeffs.append(2 * s / count)
    coeffs[0] /= 2
    return coeffs


for name, f, a, b in [("small", f_small, 0, 1), ("mid", g_large, 1, 2.5), ("large", g_large, 2.5, 6)]:
    print(f"    // {name}: [{a}, {b}]")
    print("    {" + ", ".join(repr(float(c)) for c in chebyshev(f, a, b, DEGREE)) + "},")
