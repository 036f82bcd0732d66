"""Pass mutants argued equivalent: each changes no behaviour of the
vectorizer, with the argument why. A mutant is listed here only after its
survival was examined; the scores in docs/campaigns.md are over the rest.
Keys are mutant ids from `python -m fuzz.pass_mutants list`."""

EQUIVALENT: dict[str, str] = {}
