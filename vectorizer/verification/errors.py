"""The error every checker raises."""

from __future__ import annotations


class AnalysisMismatch(Exception):
    """An analysis disagrees with its reference (or a transform left IR its
    post-condition forbids): `analysis` names it, `function` the function,
    `detail` the first difference."""

    def __init__(self, analysis: str, function: str, detail: str) -> None:
        super().__init__(f"{analysis} of '{function}' is wrong: {detail}")
        self.analysis = analysis
        self.function = function
        self.detail = detail
