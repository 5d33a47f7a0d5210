-- title: Rulings with no mechanic tag
-- description: Rulings that no mechanic is tagged on, with how many cards share each.
SELECT r.id AS ruling_id,
       (SELECT count(*) FROM card_rulings cr WHERE cr.ruling_id = r.id) AS card_count,
       r.text AS ruling
FROM rulings r
WHERE NOT EXISTS (SELECT 1 FROM ruling_mechanics rm WHERE rm.ruling_id = r.id)
ORDER BY r.id
