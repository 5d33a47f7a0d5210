-- title: Rulings shared by the most cards
-- description: The 20 rulings that stand on the most cards, with those cards.
-- The top 20 are counted on the card_rulings index first, so that only their card names are
-- gathered, not every ruling's.
WITH top AS (
  SELECT ruling_id, count(*) AS card_count
  FROM card_rulings
  GROUP BY ruling_id
  ORDER BY card_count DESC, ruling_id
  LIMIT 20
)
SELECT v.ruling_id, top.card_count, v.cards, v.ruling
FROM top
JOIN ruling_cards_view v ON v.ruling_id = top.ruling_id
ORDER BY top.card_count DESC, v.ruling_id
