"""The one writer of imported records: upsert, dedupe, damaged variants, provenance, tagging.

Records arrive as a stream from the parsers and are written in batches, each looked up with a
handful of ``IN`` queries, so memory stays flat however large the source is. The caller owns the
transaction: one per ``kb import`` run, rolled back whole on any error.

``Loader`` (run.py) wires the parts, which share one ``LoadState`` (state.py): card references
(references.py), cards with their faces and names (cards.py, names.py), rulings (rulings.py),
mechanics (mechanics.py) and tags (tags.py). docs/importing.md says how they fit.
"""

from kb.batches import BATCH_SIZE
from kb.loader.run import Loader
from kb.loader.summary import Summary

__all__ = ["BATCH_SIZE", "Loader", "Summary"]
