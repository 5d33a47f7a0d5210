-- title: Card–ruling links with no date
-- description: Rulings shown on a card with no publication date (pages in the undated style).
SELECT c.name AS card, cr.ruling_id, cr.position, r.text AS ruling
FROM card_rulings cr
JOIN cards c ON c.id = cr.card_id
JOIN rulings r ON r.id = cr.ruling_id
WHERE cr.published_on IS NULL
ORDER BY c.name, cr.position
