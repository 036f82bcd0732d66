"""The vectorizer's passes, grouped by stage (preparation, control flow,
packetization, cleanup), their shared state and analyses, and the registry
of names the textual pipeline uses."""

from .registry import (
    DEFAULT_NAMES,
    OPTIONAL,
    PASSES,
    PipelineError,
    build_passes,
    default_pipeline_text,
    describe_pipeline,
    parse_pipeline,
)

__all__ = [
    "DEFAULT_NAMES",
    "OPTIONAL",
    "PASSES",
    "PipelineError",
    "build_passes",
    "default_pipeline_text",
    "describe_pipeline",
    "parse_pipeline",
]
