-- title: Printed texts to check
-- description: A locale's printed texts that look damaged in their source beside the English printed on the same printing: lines run together (fewer lines than the English), or the mana and tap symbols lost (the English has some, the text none). Correct each with kb edit printed-text.
-- param locale: locale code, e.g. ko
-- The newline inside the quotes counts lines on both engines (SQLite has char(10), PostgreSQL
-- chr(10)). A break right after an opening quote in the English is no line (MTGJSON breaks
-- the token's ability of Urza's Saga and Reef Worm there): english_lines counts the breaks
-- left once those are taken out.
SELECT c.name AS card, t.face, t.set_code, t.collector_number,
       CASE WHEN t.lines < t.english_lines THEN 'lines run together' ELSE 'symbols lost' END
         AS why,
       t.text, t.english_text
FROM (
  SELECT p.card_id, p.face, p.set_code, p.collector_number, p.text, p.english_text,
         length(p.text) - length(replace(p.text, '
', '')) AS lines,
         length(replace(replace(p.english_text, '‘
', '‘'), '“
', '“')) - length(replace(p.english_text, '
', '')) AS english_lines
  FROM printed_texts p
  WHERE p.locale = :locale AND p.text IS NOT NULL AND p.english_text IS NOT NULL
) t
JOIN cards c ON c.id = t.card_id
WHERE t.lines < t.english_lines
   OR (t.english_text LIKE '%{%' AND t.text NOT LIKE '%{%')
ORDER BY c.name, t.face
