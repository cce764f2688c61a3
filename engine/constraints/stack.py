"""ConstraintSet: the kinds of a system stacked into one ConstraintRows per state, with the rows at
u = 0 kept (SplitRows) so the rows at any u cost only the bias terms."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eomlab.engine.mechanics.state import StateContext
from eomlab.engine.constraints.rows import ConstraintKind, ConstraintRows, RowBlock


class ConstraintSet:
    """Every constraint of a system, stacked, with names for the multiplier columns."""

    def __init__(self, kinds: list[ConstraintKind]):
        self.kinds = kinds
        self.n_rows = sum(k.rows for k in kinds)
        self.level = np.array([lv for k in kinds for lv in k.level], dtype=int)
        self.owner = np.array([i for i, k in enumerate(kinds) for _ in range(k.rows)], dtype=int)
        self.row_names = [n for k in kinds for n in (k.row_names or [f"{k.name}_{r}" for r in range(k.rows)])]
        self.rheonomic = any(k.rheonomic for k in kinds)
        self._all_fast = all(k.u_independent_matrix for k in kinds)  # rows_at reuses the stacked A, Φ, c
        self._layouts: dict = {}

    @property
    def conservative(self) -> bool:
        return not self.rheonomic

    def __len__(self):
        return self.n_rows

    def row_label(self, i: int) -> str:
        k = self.kinds[self.owner[i]]
        r = i - int(np.flatnonzero(self.owner == self.owner[i])[0])
        if k.row_names:
            name = k.row_names[r]
            base, _, idx = name.rpartition("_")
            return f"{base}[{idx}]"
        return f"{k.name}[{r}]"

    def evaluate(self, ctx: StateContext) -> ConstraintRows:
        return self._stack([k.evaluate(ctx) for k in self.kinds], ctx.u.shape[0])

    def evaluate_split(self, ctx: StateContext) -> "SplitRows":
        """The rows at ctx (u = 0, the kinematics' positions stage), kept for `rows_at`."""
        pairs = [k.evaluate_at_zero(ctx) for k in self.kinds]
        blocks = [bk for bk, _ in pairs]
        return SplitRows(self._stack(blocks, ctx.u.shape[0]), blocks, [cache for _, cache in pairs])

    def rows_at(self, split: "SplitRows", ctx: StateContext) -> ConstraintRows:
        """The rows at the full state ctx (same t and q as `split`, any u).

        Kinds with `u_independent_matrix` keep A, c and Φ from the rows at u = 0, compute b at u
        and take the velocity residual A u + c; every other kind is evaluated afresh at ctx.
        Equal to `evaluate(ctx)` up to rounding (tests/engine/compiled/test_fast_rows.py).
        """
        u = ctx.u
        blocks = []
        for k, bk, cache in zip(self.kinds, split.blocks, split.caches):
            if k.u_independent_matrix:
                blocks.append(RowBlock(A=bk.A, b=k.bias_at(cache, ctx), position=bk.position,
                                       velocity=bk.A @ u + bk.c, c=bk.c))
            else:
                blocks.append(k.evaluate(ctx))
        return self._stack(blocks, u.shape[0], like=split.rows if self._all_fast else None)

    def _layout(self, blocks):
        """Indices of the rows with a velocity residual and of those linear in u (cached per pattern)."""
        pattern = tuple((bk.A.shape[0], bk.velocity is not None, bk.c is not None) for bk in blocks)
        cache = self._layouts
        hit = cache.get(pattern)
        if hit is None:
            vel_rows, lin_rows = [], []
            row = 0
            for m, has_vel, has_c in pattern:
                if has_vel:
                    vel_rows.extend(range(row, row + m))
                    if has_c:
                        lin_rows.extend(range(row, row + m))
                row += m
            hit = cache[pattern] = (np.array(vel_rows, int), np.array(lin_rows, int))
        return hit

    def _stack(self, blocks: list[RowBlock], n_u: int, like: ConstraintRows | None = None) -> ConstraintRows:
        if not blocks:
            empty = np.zeros(0)
            return ConstraintRows(np.zeros((0, n_u)), empty, self.level, self.owner, empty, empty,
                                  np.zeros(0, int), empty, np.zeros(0, int))
        if len(blocks) == 1:
            bk = blocks[0]
            vel_rows, lin_rows = self._layout(blocks)
            none = np.zeros(0)
            velocity = bk.velocity if bk.velocity is not None else none
            c = bk.c if (bk.velocity is not None and bk.c is not None) else none
            return ConstraintRows(bk.A, bk.b, self.level, self.owner,
                                  bk.position if bk.position is not None else none, velocity, vel_rows, c, lin_rows)
        cat = lambda xs: np.concatenate(xs) if xs else np.zeros(0)  # noqa: E731
        b = np.concatenate([bk.b for bk in blocks])
        vel_rows, lin_rows = self._layout(blocks)
        velocity = cat([bk.velocity for bk in blocks if bk.velocity is not None])
        if like is not None:  # A, Φ and c as at u = 0
            return ConstraintRows(like.A, b, self.level, self.owner, like.position, velocity, vel_rows, like.c,
                                  lin_rows)
        A = np.vstack([bk.A for bk in blocks])
        position = cat([bk.position for bk in blocks if bk.position is not None])
        c = cat([bk.c for bk in blocks if bk.velocity is not None and bk.c is not None])
        return ConstraintRows(A, b, self.level, self.owner, position, velocity, vel_rows, c, lin_rows)


@dataclass
class SplitRows:
    """ConstraintSet.evaluate_split: the stacked rows at u = 0, and per kind its block and cache."""

    rows: ConstraintRows
    blocks: list
    caches: list
