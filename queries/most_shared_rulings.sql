-- title: Rulings shared by the most cards
-- description: The 20 rulings that stand on the most cards, with those cards.
SELECT ruling_id, card_count, cards, ruling
FROM ruling_cards_view
ORDER BY card_count DESC, ruling_id
LIMIT 20
