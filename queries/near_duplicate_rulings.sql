-- title: Near-duplicate ruling texts
-- description: Pairs of rulings that may be one ruling: the same text without mana symbols (a damaged copy), or the same first 60 characters (typography folded) and lengths within 10 characters.
-- The pairs are kept in near_duplicates (kb recomputes a ruling's pairs whenever its text is
-- written): finding them reads every ruling's keys. The texts are looked up pair by pair, as a
-- join would have PostgreSQL hash every ruling.
SELECT p.ruling_id, p.other_ruling_id, p.reason,
       (SELECT r.text FROM rulings r WHERE r.id = p.ruling_id) AS ruling,
       (SELECT r.text FROM rulings r WHERE r.id = p.other_ruling_id) AS other_ruling
FROM near_duplicates p
ORDER BY p.ruling_id, p.other_ruling_id
