-- title: Translations waiting for review
-- description: Draft translations of rulings in the locale, with the English original.
-- param locale: locale code, e.g. it
SELECT t.ruling_id, t.text AS translation, r.text AS ruling
FROM ruling_translations t
JOIN rulings r ON r.id = t.ruling_id
WHERE t.locale = :locale AND t.status = 'draft'
ORDER BY t.ruling_id
