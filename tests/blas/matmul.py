"""tests/blas/matmul.py: numpy's float32 and float64 matmul for tests/blas/run.sh.

  matmul.py run OUT.npy [float64]
                            300x200 @ 200x250 of seeded random data -> OUT.npy
                            (float32, or float64 with values using all 53 bits)
  matmul.py compare G.npy N.npy [float64]
                            G (run under LD_PRELOAD=libglgemm_blas.so) and N
                            (without) against a product carried further
                            (float64 for float32; long double for
                            float64): each within k 2^-23 (k 2^-52 for
                            float64) of (|A| @ |B|) elementwise, and G within
                            a relative 1e-5 (1e-13) of N.
"""
import sys

import numpy as np


def operands(dtype):
    rng = np.random.default_rng(17)
    a = rng.uniform(-1, 1, (300, 200)).astype(dtype)
    b = rng.uniform(-1, 1, (200, 250)).astype(dtype)
    return a, b


def exact64(a, b):
    """A @ B of float64s in long double (x86's 64-bit significand: its sums
    err about k 2^-64, far below float64's bound)."""
    assert np.finfo(np.longdouble).nmant >= 63, "no 80-bit long double here"
    return (a.astype(np.longdouble) @ b.astype(np.longdouble))


def main():
    dtype = np.float64 if sys.argv[-1] == "float64" else np.float32
    if sys.argv[1] == "run":
        a, b = operands(dtype)
        c = a @ b
        assert c.dtype == dtype and c.shape == (300, 250)
        np.save(sys.argv[2], c)
        return 0
    a, b = operands(dtype)
    g, n = np.load(sys.argv[2]), np.load(sys.argv[3])
    assert g.dtype == dtype and n.dtype == dtype
    if dtype == np.float32:
        ref = a.astype(np.float64) @ b.astype(np.float64)
        unit, close = 2.0**-23, 1e-5
    else:
        ref = exact64(a, b)
        unit, close = 2.0**-52, 1e-13
    bound = a.shape[1] * unit * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    bad = 0
    for name, c in (("preloaded", g), ("own BLAS", n)):
        err = np.abs(c.astype(ref.dtype) - ref).astype(np.float64)
        worst = float(np.max(err / bound))
        print(f"matmul {np.dtype(dtype).name} {name}: max |C - ref| = {float(err.max()):.3g}, "
              f"{worst:.3f} of the bound")
        bad |= not worst <= 1.0
    rel = float(np.max(np.abs(g.astype(np.float64) - n)) / np.max(np.abs(n)))
    print(f"matmul {np.dtype(dtype).name}: preloaded vs own BLAS: relative difference {rel:.3g}")
    bad |= not rel <= close
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
