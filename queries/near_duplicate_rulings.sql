-- title: Near-duplicate ruling texts
-- description: Pairs of rulings that may be one ruling: the same text without mana symbols (a damaged copy), or the same first 60 characters and lengths within 10 characters.
SELECT a.id AS ruling_id, b.id AS other_ruling_id,
       CASE WHEN a.skeleton_key = b.skeleton_key THEN 'same without symbols'
            ELSE 'same beginning' END AS reason,
       a.text AS ruling, b.text AS other_ruling
FROM rulings a
JOIN rulings b ON b.id > a.id
WHERE a.skeleton_key = b.skeleton_key
   OR (substr(a.text, 1, 60) = substr(b.text, 1, 60)
       AND abs(length(a.text) - length(b.text)) <= 10)
ORDER BY a.id, b.id
