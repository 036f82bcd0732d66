"""Pass mutants argued equivalent: each changes no behaviour of the
vectorizer, with the argument why. A mutant is listed here only after its
survival was examined; the scores in docs/campaigns.md are over the rest.
Keys are mutant ids from `python -m fuzz.pass_mutants list`."""

EQUIVALENT: dict[str, str] = {
    "widen_index_arithmetic:insertion-point:0": (
        "The rewrite is built at `position_after(sext)` instead of `position_before(sext)`, then every use "
        "of the sext is replaced and the sext erased. `position_after` inserts before the sext's next "
        "instruction and later insertions follow in order (Builder.position_after), so the new sequence "
        "lands in the same place relative to every other instruction: between the sext's operands (defined "
        "before it) and its users (after it; a sext is never a terminator or a phi, so it has a next "
        "instruction). Once the sext is erased the block is instruction for instruction the same."
    ),
    "dominance:off-by-one:0": (
        "`function.entry if hasattr(function, 'entry') else self.blocks[0]` -> `self.blocks[1]`: the "
        "fallback only runs for an object without an `entry` attribute. Every caller passes a "
        "`vectorizer.ir.values.Function` (which has `entry`) or the unit tests' FakeFunction (which has "
        "`entry` too: tests/unit/cfg_fixtures.py), so the mutated expression is never evaluated."
    ),
    "divergence:compare-flip:24": (
        "A divergent loop's join of exits (nearest common post-dominator of its exits) is no longer added "
        "to blend_blocks (and the virtual exit is, which only membership tests ever see). The join is a "
        "blend block anyway: (a) when a varying branch inside the loop makes it divergent (the branch exits, "
        "or its region holds an exiting block), every exit is reachable from that branch through the back "
        "edge, so the branch's immediate post-dominator, added at line 201, is the same join (the same holds "
        "when an inner divergent loop's region holds the exiting block: the varying branch behind that inner "
        "loop lies in this loop too and reaches all of its exits); (b) when the "
        "loop is divergent only because an outer varying branch's region covers its header, the join lies "
        "in that region (converted, as not by_all) or is the region's own post-dominator (added at line "
        "201), and every active lane leaves by the same exit, the exit conditions being uniform. Case (b) "
        "is checked by test_loop_under_a_varying_if_with_two_exits_matches (tests/test_pass_mutant_kills.py), "
        "which matches with and without the mutant."
    ),
    "squash_small_vectors:insertion-point:0": (
        "The integer access that replaces a small-vector load or store is built at "
        "`position_after(inst)` instead of `position_before(inst)`, and `inst` is erased right after "
        "(its uses replaced first for a load). As for widen_index_arithmetic:insertion-point:0, the new "
        "instructions follow one another before `inst`'s next instruction, which is where they are once "
        "`inst` is gone; they read only `inst`'s pointer and stored value, defined before `inst`. A load or "
        "store is neither a phi nor a terminator, so that next instruction exists; no other memory "
        "operation moves relative to the access."
    ),
    "boscc:insertion-point:2": (
        "`b.position_at_end(d_any)` -> `b.position_at_start(d_any)`: `d_any` was created empty by "
        "`fn.add_block` a few lines above and nothing is inserted into it before this point, and on an "
        "empty block `position_at_start` sets the same state as `position_at_end` (the block, no "
        "instruction to insert before: Builder.position_at_start), so the any-lane test and its branch "
        "are appended exactly as before."
    ),
    "remove_intptr:insertion-point:1": (
        "The `getelementptr` + `ptrtoint` that replace an integer `add` of a `ptrtoint` are built at "
        "`position_after(inst)` instead of `position_before(inst)`; `inst` (a binary operator: never a phi "
        "or a terminator) then has its uses replaced and is erased. Its operands (the `ptrtoint` and the "
        "offset) are defined before it, its users after it, and the new pair ends up exactly where it "
        "would have been once `inst` is gone (as for widen_index_arithmetic:insertion-point:0); the name "
        "is copied before the erasure in both cases."
    ),
    "interleave_private_arrays:insertion-point:0": (
        "The sext/mul/getelementptr that re-index an interleaved private array are built at "
        "`position_after(gep)` instead of `position_before(gep)`, and the old `gep` (never a phi or a "
        "terminator) then has its uses replaced and is erased. They read only the old GEP's index and the "
        "alloca, both defined before it; once it is gone they sit exactly where they would have been "
        "(as for widen_index_arithmetic:insertion-point:0)."
    ),
    "lane_safe_extensions:insertion-point:0": (
        "The `sext` replacing a varying `zext nneg` is built at `position_after(inst)` instead of "
        "`position_before(inst)`; `inst` (a cast: never a phi or a terminator) then has its uses replaced "
        "and is erased. The `sext` reads only `inst`'s operand, defined before it, and ends up in `inst`'s "
        "place (as for widen_index_arithmetic:insertion-point:0); it takes `inst`'s name before `inst` is "
        "renamed in both cases."
    ),
    "builtin_inlining:insertion-point:0": (
        "The phi merging an inlined callee's return values is built at `position_after(cont.instructions[0])` "
        "instead of `position_before(cont.instructions[0])`. `cont` comes from `block.split_before(call)`, so "
        "its first instruction is always the call being inlined, and nothing is inserted into `cont` between "
        "the split and the phi. The phi thus lands right after the call instead of right before it; the call's "
        "uses are then replaced by the phi and the call is erased two lines later, leaving the phi first in "
        "`cont` either way: the same block, instruction for instruction. (Checked: a kernel calling a callee "
        "with two value-returning `ret`s vectorizes and matches at W = 4 and 8 on the mutant's copy.)"
    ),
}
