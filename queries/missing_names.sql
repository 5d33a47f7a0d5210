-- title: Cards of a mechanic missing a name in a locale
-- description: Cards tagged with the mechanic that have no printed name in the locale yet.
-- param mechanic: mechanic slug, e.g. spree
-- param locale: locale code, e.g. it
SELECT c.id AS card_id, c.name AS card
FROM cards c
JOIN card_mechanics cm ON cm.card_id = c.id
JOIN mechanics m ON m.id = cm.mechanic_id
WHERE m.slug = :mechanic
  AND NOT EXISTS (
    SELECT 1 FROM card_names n WHERE n.card_id = c.id AND n.locale = :locale
  )
ORDER BY c.name
