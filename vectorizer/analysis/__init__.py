"""vectorizer/analysis.

The CFG analyses are re-exported here; they only read the IR and do not
import it, so importing this package stays cheap.
"""

from .block_ordering import (
    block_index_map,
    dominance_compact_index,
    dominance_compact_order,
    post_order,
    reverse_post_order,
)
from .dominance import DominatorTree
from .loops import IrreducibleRegion, Loop, LoopInfo
from .post_dominance import VIRTUAL_EXIT, PostDominatorTree

__all__ = [
    "VIRTUAL_EXIT",
    "DominatorTree",
    "IrreducibleRegion",
    "Loop",
    "LoopInfo",
    "PostDominatorTree",
    "block_index_map",
    "dominance_compact_index",
    "dominance_compact_order",
    "post_order",
    "reverse_post_order",
]
