"""`builtins.callees.lane_dependent_builtin`: which builtin a callee that
stays a call reaches, through any chain of defined functions."""

from __future__ import annotations

import pytest

from vectorizer.builtins.callees import lane_dependent_builtin
from vectorizer.ir import parse_module

CALLEES = """
declare i64 @{query}(i32)
declare i32 @{query0}()
declare void @_Z7barrierj(i32)
define internal i64 @leaf(i32 %d) {{
entry:
  %q = call i64 @{query}(i32 %d)
  ret i64 %q
}}
define internal i64 @middle(i32 %d) {{
entry:
  %v = call i64 @leaf(i32 %d)
  ret i64 %v
}}
define internal i32 @sub(i32 %d) {{
entry:
  %v = call i32 @{query0}()
  ret i32 %v
}}
define internal void @sync() {{
entry:
  call void @_Z7barrierj(i32 1)
  ret void
}}
"""


@pytest.mark.parametrize(("query", "reached"), [
    ("_Z13get_global_idj", True),
    ("_Z12get_local_idj", True),
    ("__mux_get_global_id", True),
    ("_Z12get_group_idj", False),
    ("_Z15get_global_sizej", False),
    ("_Z14get_local_sizej", False),
])
def test_position_queries_are_reached_through_calls_group_queries_are_not(query: str, reached: bool) -> None:
    module = parse_module(CALLEES.format(query=query, query0="_Z22get_sub_group_local_idv"))
    middle = module.get_function("middle")
    assert lane_dependent_builtin(middle) == (query if reached else None)


def test_sub_group_queries_and_barriers_are_lane_dependent() -> None:
    module = parse_module(CALLEES.format(query="_Z12get_group_idj", query0="_Z18get_sub_group_sizev"))
    assert lane_dependent_builtin(module.get_function("sub")) == "_Z18get_sub_group_sizev"
    assert lane_dependent_builtin(module.get_function("sync")) == "_Z7barrierj"
