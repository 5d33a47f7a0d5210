"""Community translations of rulings in translators' own tools: gettext PO files out
(``po_export``) and back (``po_import``), and how far each locale has come (``status``)."""
