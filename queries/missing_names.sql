-- title: Cards of a mechanic missing a name in a locale
-- description: Cards tagged with the mechanic that have no printed name in the locale yet.
-- param mechanic: mechanic slug, e.g. spree
-- param locale: locale code, e.g. it
-- The name is looked for by the tag's card_id, so that PostgreSQL drops the named cards before
-- reading cards (a mechanic such as flying tags thousands).
SELECT c.id AS card_id, c.name AS card
FROM card_mechanics cm
JOIN mechanics m ON m.id = cm.mechanic_id
JOIN cards c ON c.id = cm.card_id
WHERE m.slug = :mechanic
  AND NOT EXISTS (
    SELECT 1 FROM card_names n WHERE n.card_id = cm.card_id AND n.locale = :locale
  )
ORDER BY c.name
