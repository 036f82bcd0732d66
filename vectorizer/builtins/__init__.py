"""BuiltinInfo: work-item queries, math, relational, sub-group and barrier builtins."""

from .info import BuiltinKind, BuiltinSummary, classify
from .mangling import demangle
from .work_item import WorkItemQuery, work_item_query

__all__ = ["BuiltinKind", "BuiltinSummary", "WorkItemQuery", "classify", "demangle", "work_item_query"]
