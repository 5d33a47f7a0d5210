-- title: Mined mechanic names to check
-- description: Names mined from the printed texts on little evidence (fewer than 5 cards), on a split vote (under 3 in 4 of the cards voting), or by contrast (keyword actions, often an inflected form); confirm or correct each with kb edit mechanic-name.
SELECT m.slug AS mechanic, n.locale, n.name, n.cards, n.voters,
       CAST(ROUND(100.0 * n.cards / n.voters) AS integer) AS share_percent,
       n.runner_up, n.runner_up_cards, n.method
FROM mechanic_names n
JOIN mechanics m ON m.id = n.mechanic_id
WHERE n.origin = 'mined'
  AND (n.voters < 5 OR 4 * n.cards < 3 * n.voters OR n.method = 'contrast')
ORDER BY m.slug, n.locale
