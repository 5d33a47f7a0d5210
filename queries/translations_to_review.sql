-- title: Translations waiting for review
-- description: Draft translations in the locale, and reviewed ones whose English text changed since, with the English.
-- param locale: locale code, e.g. it
SELECT t.ruling_id,
       CASE WHEN t.status = 'draft' THEN 'draft' ELSE 'English text changed' END AS waiting,
       t.text AS translation, r.text AS ruling
FROM ruling_translations t
JOIN rulings r ON r.id = t.ruling_id
WHERE t.locale = :locale
  AND (t.status = 'draft' OR t.reviewed_key <> r.text_key)
ORDER BY t.ruling_id
