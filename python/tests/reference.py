"""numpy references for DirectML's rules (docs/semantics.md), used to check
vkdml where plain numpy or torch answer differently."""

import itertools

import numpy as np

FLOATS = (np.float16, np.float32)
DTYPES = [np.float32, np.float16, np.uint32, np.uint16, np.uint8,
          np.int32, np.int16, np.int8, np.uint64, np.int64]
INDEX_DTYPES = [np.uint32, np.int32, np.uint64, np.int64]


def arg_reference(x, axes, is_min, direction):
    """ARGMAX/ARGMIN by semantics.md rules 2-5: indices count in row-major
    order over the reduced axes of each block; INCREASING returns the first
    extreme, DECREASING the last; a NaN wins only in a block's first
    position (comparisons with NaN are false); -0 ties with +0."""
    axes = sorted(set(a % x.ndim for a in axes))
    kept = [i for i in range(x.ndim) if i not in axes]
    blocks = np.transpose(x, kept + axes).reshape([x.shape[i] for i in kept] + [-1])
    out = np.zeros(blocks.shape[:-1], np.int64)
    for pos in np.ndindex(*blocks.shape[:-1]):
        b = blocks[pos]
        if b.dtype.kind == "f" and np.isnan(b[0]):
            out[pos] = 0
            continue
        valid = ~np.isnan(b) if b.dtype.kind == "f" else np.ones(b.shape, bool)
        best = b[valid].min() if is_min else b[valid].max()
        ties = np.flatnonzero(valid & (b == best))
        out[pos] = ties[0] if direction == "increasing" else ties[-1]
    return out.reshape([1 if i in axes else n for i, n in enumerate(x.shape)])


def lowest(dtype):
    """The running best's start value of rule 9: the lowest finite value."""
    dtype = np.dtype(dtype)
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def max_pool_reference(x, window, strides, dilations, start, end, out_size):
    """MAX_POOLING2 by semantics.md rule 9: the best starts at the lowest
    finite value with the first in-bounds tap's index (0 without one); taps
    are visited in row-major window order and replace the best only when
    strictly greater, so ties keep the first tap and NaN and -inf are never
    selected. Indices are flat over the whole input."""
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    plane = int(np.prod(spatial))
    low = np.array(lowest(x.dtype), x.dtype)
    base = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * plane
    y = np.empty((n, c) + tuple(out_size), x.dtype)
    idx = np.zeros((n, c) + tuple(out_size), np.int64)
    for o in itertools.product(*[range(s) for s in out_size]):
        taps = []
        for k in itertools.product(*[range(w) for w in window]):
            p = [o[i] * strides[i] - start[i] + k[i] * dilations[i] for i in range(len(o))]
            if all(0 <= p[i] < spatial[i] for i in range(len(p))):
                taps.append(tuple(p))
        at = (slice(None), slice(None)) + o
        if not taps:
            y[at], idx[at] = low, 0
            continue
        vals = np.stack([x[(slice(None), slice(None)) + t] for t in taps], axis=-1)
        flat = np.array([np.ravel_multi_index(t, spatial) for t in taps])
        greater = vals > low
        best = np.where(greater, vals, low).max(axis=-1)
        hit = greater & (vals == best[..., None])
        first = np.where(hit.any(axis=-1), hit.argmax(axis=-1), 0)
        chosen = np.take_along_axis(vals, first[..., None], axis=-1)[..., 0]
        y[at] = np.where(hit.any(axis=-1), chosen, low)
        idx[at] = base + flat[first]
    return y, idx


def draw(rng, dtype, shape, special=True):
    """Values of dtype with many ties (a narrow range), and for floats NaN,
    +-0 and +-inf; integers include the type's extremes."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        x = rng.integers(-3, 4, size=shape).astype(dtype)
        if special:
            pick = rng.random(shape)
            x[pick < 0.06] = np.nan
            x[(pick >= 0.06) & (pick < 0.09)] = np.inf
            x[(pick >= 0.09) & (pick < 0.12)] = -np.inf
            x[(pick >= 0.12) & (pick < 0.16)] = -0.0
        return x
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -3), min(info.max, 4)
    x = rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype)
    if special:
        pick = rng.random(shape)
        x[pick < 0.05] = info.min
        x[(pick >= 0.05) & (pick < 0.1)] = info.max
    return x


def layout(rng, x, kind):
    """x (or an equal array) in memory of the given kind: "c", "fortran",
    "strided" (a view that skips elements), "broadcast" (a stride-0 axis),
    or "reversed" (negative strides, which vkdml must copy)."""
    if kind == "c":
        return np.ascontiguousarray(x)
    if kind == "fortran":
        return np.asfortranarray(x)
    if kind == "strided":
        axis = int(rng.integers(x.ndim))
        shape = list(x.shape)
        shape[axis] *= 2
        big = np.zeros(shape, x.dtype)
        sl = [slice(None)] * x.ndim
        sl[axis] = slice(1, None, 2)
        big[tuple(sl)] = x
        return big[tuple(sl)]
    if kind == "broadcast":
        axis = int(rng.integers(x.ndim))
        one = np.take(x, [0], axis=axis)
        return np.broadcast_to(one, x.shape)
    if kind == "reversed":
        return np.ascontiguousarray(x[..., ::-1])[..., ::-1]
    raise ValueError(kind)
