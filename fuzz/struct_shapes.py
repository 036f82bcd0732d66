"""Private arrays laid out inside a struct after fields of mixed alignment.

A `PrivArray` with a `header` is allocated as `%struct.privN = type
{ header..., [N x T] }` and every access reaches the array through a
`getelementptr` into the struct's last field. The array's offset is the
data layout's: each field rounded up to its ABI alignment (an `i8` then an
`[N x double]` puts the array at 8, `{ i8, i16, [N x <3 x float>] }` at
16). Vectorizing such an alloca (one copy per lane, interleaved or not)
must keep that offset: a mistake reads or writes the wrong bytes.

The header fields are padding only: never read, so nothing uninitialised
is ever observed; the array itself is filled before it is read, as every
private array is (fuzz/planner.py `_private_array`).
"""

from __future__ import annotations

from .choice_source import Choices
from .plan import F32, F64, I8, I16, I32, I64, Ty

# Scalars of every alignment from 1 to 8 bytes, and a 16-byte vector.
HEADER_TYPES: tuple[Ty, ...] = (I8, I16, I32, I64, F32, F64, Ty("f32", 3))


def struct_header(c: Choices) -> tuple[Ty, ...]:
    """One to three header fields, an `i8` first most often (the layout's
    padding then depends on every later field's alignment)."""
    first = I8 if c.boolean(0.6) else c.choice(HEADER_TYPES)
    return (first, *(c.choice(HEADER_TYPES) for _ in range(c.integer(0, 2))))
