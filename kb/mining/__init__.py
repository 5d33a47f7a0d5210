"""Mechanic and type names in every locale, mined from the printed texts (docs/mining.md).

``mine`` reads samples (kb/mining/samples.py) once and returns the names it found: keyword
abilities by aligned lines (keywords.py), keyword actions by contrast (actions.py), card types
and subtypes by aligned type lines (types.py), each with its votes (votes.py). Pure: no store.
"""
