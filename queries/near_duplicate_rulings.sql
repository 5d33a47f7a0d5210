-- title: Near-duplicate ruling texts
-- description: Pairs of rulings that may be one ruling: the same text without mana symbols (a damaged copy), or the same first 60 characters (typography folded) and lengths within 10 characters.
-- Each kind of pair is found by an equality join on an indexed key (skeleton_key, head_key):
-- comparing every ruling with every other would take minutes on the full corpus.
WITH pairs AS (
  SELECT a.id AS ruling_id, b.id AS other_ruling_id
  FROM rulings a JOIN rulings b ON b.skeleton_key = a.skeleton_key AND b.id > a.id
  UNION
  SELECT a.id, b.id
  FROM rulings a JOIN rulings b ON b.head_key = a.head_key AND b.id > a.id
  WHERE abs(length(a.text) - length(b.text)) <= 10
)
SELECT a.id AS ruling_id, b.id AS other_ruling_id,
       CASE WHEN a.skeleton_key = b.skeleton_key THEN 'same without symbols'
            ELSE 'same beginning' END AS reason,
       a.text AS ruling, b.text AS other_ruling
FROM pairs p
JOIN rulings a ON a.id = p.ruling_id
JOIN rulings b ON b.id = p.other_ruling_id
ORDER BY a.id, b.id
