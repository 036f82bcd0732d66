"""Opaque OpenCL types made fit for a CPU's code generator.

clang 22 gives `event_t` the target extension type `target("spirv.Event")`
(and images and samplers `target("spirv.Image", ...)` and
`target("spirv.Sampler")`). x86's instruction selection cannot pass such
values ("unable to allocate function argument"), so before a module is
compiled (`oracle.jit.native_text`, scalar and vectorized alike) each is
spelled as the type the runtime implements it with:

- `target("spirv.Event")` -> `ptr`: events are never read
  (vectorizer/builtins/async_copy.py); `zeroinitializer` stays valid.
- `target("spirv.Image", ...)` -> `ptr addrspace(1)`: an image object in a
  global buffer (header and pixels, vectorizer/builtins/images.py).
- `target("spirv.Sampler")` -> `i32`: the sampler's bit field
  (`__translate_sampler_initializer` returns its operand).
"""

from __future__ import annotations

import re

_EVENT = re.compile(r'target\("spirv\.Event"\)')
_IMAGE = re.compile(r'target\("spirv\.Image"(?:,\s*(?:void|\d+))*\)')
_SAMPLER = re.compile(r'target\("spirv\.Sampler"\)')


def lower(text: str) -> str:
    """`text` with OpenCL's opaque target types replaced by their runtime types."""
    if "target(" not in text:
        return text
    return _SAMPLER.sub("i32", _IMAGE.sub("ptr addrspace(1)", _EVENT.sub("ptr", text)))
