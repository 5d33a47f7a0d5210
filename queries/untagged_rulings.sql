-- title: Rulings with no mechanic tag
-- description: Rulings that no mechanic is tagged on, with how many cards share each.
SELECT r.id AS ruling_id, v.card_count, r.text AS ruling
FROM rulings r
JOIN ruling_cards_view v ON v.ruling_id = r.id
WHERE NOT EXISTS (SELECT 1 FROM ruling_mechanics rm WHERE rm.ruling_id = r.id)
ORDER BY r.id
