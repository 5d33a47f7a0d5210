-- title: Near-duplicate ruling texts
-- description: Pairs of rulings that may be one ruling: the same text without mana symbols (a damaged copy), or the same first 60 characters (typography folded) and lengths within 10 characters.
-- The pairs are kept in near_duplicates (kb recomputes a ruling's pairs whenever its text is
-- written): finding them reads every ruling's keys. near_duplicates_view adds the two texts.
SELECT ruling_id, other_ruling_id, reason, ruling, other_ruling
FROM near_duplicates_view
ORDER BY ruling_id, other_ruling_id
