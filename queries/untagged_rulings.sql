-- title: Rulings with no mechanic tag
-- description: Rulings that no mechanic is tagged on, with how many cards share each.
-- Counted by a grouped join rather than a subquery per ruling: PostgreSQL then merges three
-- indexes read in ruling order instead of looking card_rulings up once per ruling.
SELECT r.id AS ruling_id, count(cr.card_id) AS card_count, r.text AS ruling
FROM rulings r
LEFT JOIN card_rulings cr ON cr.ruling_id = r.id
WHERE NOT EXISTS (SELECT 1 FROM ruling_mechanics rm WHERE rm.ruling_id = r.id)
GROUP BY r.id
ORDER BY r.id
