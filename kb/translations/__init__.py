"""Community translations of rulings in translators' own tools: gettext PO files out
(``po_export``) and back (``po_import``), a glossary of the game's terms (``glossary``), the
terms checked in translations (``check``), and how far each locale has come (``coverage``,
shown by ``status``)."""
