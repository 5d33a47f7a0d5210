from __future__ import annotations

import datetime as dt
import io
import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import TypeVar

import pytest
from realdata import realdata

from kb.importers import mtgjson, streams
from kb.importers.mtgjson_texts import (
    as_printed,
    english_copy,
    english_mended,
    letters_as_symbols,
    lines_apart,
    lines_by_sentences,
    lines_joined,
    one_kind_of_break,
    one_separator,
    without_markup,
    without_stray_glyphs,
    words_spaced,
)
from kb.records import (
    CardNameRecord,
    CardRecord,
    CardRef,
    OracleFace,
    ParseError,
    PrintedTextRecord,
    Printing,
    RulingRecord,
)

THREE_STEPS_AHEAD = "282dfeaa-6243-4f92-838a-5cb54fa85184"
Record = CardRecord | CardNameRecord | RulingRecord | PrintedTextRecord
T = TypeVar("T")


def _parse_json(document: object, name: str = "cards.json") -> list[Record]:
    return list(mtgjson.parse(io.BytesIO(json.dumps(document).encode()), name))


def _excerpt() -> dict[str, object]:
    excerpt: dict[str, object] = json.loads(realdata("mtgjson_OTJ_excerpt.json").read_bytes())
    return excerpt


def _by_card(records: Iterable[Record]) -> dict[str, list[Record]]:
    grouped: defaultdict[str, list[Record]] = defaultdict(list)
    for record in records:
        grouped[record.name if isinstance(record, CardRecord) else str(record.card.name)].append(
            record
        )
    return grouped


def _of_type(records: Iterable[object], kind: type[T]) -> list[T]:
    return [record for record in records if isinstance(record, kind)]


def test_otj_excerpt() -> None:
    path = realdata("mtgjson_OTJ_excerpt.json")
    with path.open("rb") as stream:
        records = list(mtgjson.parse(stream, str(path)))
    by_card = _by_card(records)
    assert len(_of_type(records, CardRecord)) == 6

    three_steps = by_card["Three Steps Ahead"]
    [card] = _of_type(three_steps, CardRecord)
    assert three_steps[0] is card  # the card comes before its names and rulings
    assert (card.oracle_id, card.mana_cost, card.keywords) == (THREE_STEPS_AHEAD, "{U}", ("Spree",))
    rulings = _of_type(three_steps, RulingRecord)
    assert len(rulings) == 18
    assert {ruling.published_on for ruling in rulings} == {dt.date(2024, 4, 12)}
    assert [ruling.position for ruling in rulings] == list(range(18))
    assert {ruling.card for ruling in rulings} == {CardRef(THREE_STEPS_AHEAD, "Three Steps Ahead")}
    names = {name.locale: name.name for name in _of_type(three_steps, CardNameRecord)}
    assert set(names) == {"de", "es", "fr", "it", "ja", "pt-BR", "zh-Hans"}
    assert names["de"] == "Drei Schritte voraus"

    assert len(_of_type(by_card["Caught in the Crossfire"], RulingRecord)) == 15
    assert _of_type(by_card["This Town Ain't Big Enough"], RulingRecord) == []


@pytest.mark.parametrize("wrapped", [True, False])
def test_set_file_with_or_without_wrapper(wrapped: bool) -> None:
    excerpt = _excerpt()
    document = {"meta": {"version": "5.2.0"}, "data": excerpt} if wrapped else excerpt
    assert _parse_json(document) == _parse_json(_excerpt())


def test_all_printings_yields_each_card_once() -> None:
    # The same cards in two sets, and a reprint inside one set: one card, names and rulings once;
    # printed texts once per set (the loader keeps the most recent printing's).
    excerpt = _excerpt()
    cards = excerpt["cards"]
    assert isinstance(cards, list)
    reprinted = excerpt | {"cards": [*cards, cards[3]], "code": "OTX"}
    records = _parse_json({"meta": {}, "data": {"OTJ": excerpt, "OTX": reprinted}})
    alone = _parse_json(_excerpt())
    texts = _of_type(alone, PrintedTextRecord)
    assert [r for r in records if not isinstance(r, PrintedTextRecord)] == [
        r for r in alone if not isinstance(r, PrintedTextRecord)
    ]
    assert _of_type(records, PrintedTextRecord) == texts + texts


@pytest.mark.parametrize(
    "second,reason",
    [
        ({"code": "OTX", "cards": 5}, "set OTX: cards 5 is not a list"),
        ({"code": "OTX", "cards": {"a": 1}}, "set OTX: cards {'a': 1} is not a list"),
        (3, "set OTX: 3 is not a JSON object"),
    ],
)
def test_an_all_printings_set_of_the_wrong_type_is_an_error(second: object, reason: str) -> None:
    """It was silently left out: a set without its cards imports nothing of it."""
    with pytest.raises(ParseError) as raised:
        _parse_json({"meta": {}, "data": {"OTJ": _excerpt(), "OTX": second}})
    assert str(raised.value) == f"cards.json: {reason}"


@pytest.mark.parametrize("wrapped", [True, False])
@pytest.mark.parametrize(
    "cards,shown",
    [(5, "5"), ({"a": 1}, "an object"), ("x", "'x'"), (None, "null"), (True, "True")],
)
def test_a_set_whose_cards_are_not_a_list_is_an_error(
    wrapped: bool, cards: object, shown: str
) -> None:
    """It imported no card and succeeded: ijson's "data.cards.item" matches nothing there."""
    # A booster past the 64 KB head first, as in real set files: the type lies beyond it.
    booster = {"default": {"sheets": {f"sheet{n}": {"cards": {"x" * 60: n}} for n in range(2000)}}}
    bare = {"baseSetSize": 1, "booster": booster, "cards": cards, "code": "OTX"}
    document = {"meta": {}, "data": bare} if wrapped else bare
    assert len(json.dumps(booster)) > streams.SNIFF_BYTES
    with pytest.raises(ParseError) as raised:
        _parse_json(document)
    prefix = "data.cards" if wrapped else "cards"
    assert str(raised.value) == f"cards.json: {prefix} {shown} is not a list"


@pytest.mark.parametrize("wrapped", [True, False])
def test_a_set_with_a_large_booster_before_its_cards_reads_them_all(wrapped: bool) -> None:
    excerpt = _excerpt()
    booster = {"default": {"sheets": {f"sheet{n}": {"cards": {"x" * 60: n}} for n in range(2000)}}}
    bare = {"baseSetSize": 1, "booster": booster} | excerpt
    document = {"meta": {}, "data": bare} if wrapped else bare
    assert _parse_json(document) == _parse_json(_excerpt())


def test_a_set_without_cards_has_none() -> None:
    assert _parse_json({"meta": {}, "data": {"baseSetSize": 0, "code": "OTX"}}) == []


def test_an_all_printings_set_without_cards_has_none() -> None:
    records = _parse_json({"meta": {}, "data": {"OTJ": _excerpt(), "OTX": {"code": "OTX"}}})
    assert records == _parse_json(_excerpt())


def test_atomic_cards() -> None:
    cards = _excerpt()["cards"]
    assert isinstance(cards, list)
    atomic = {"meta": {}, "data": {card["name"]: [card] for card in cards}}
    assert Counter(type(record) for record in _parse_json(atomic)) == Counter(
        type(record) for record in _parse_json(_excerpt())
    )


def _face(name: str, face_name: str, side: str, **fields: object) -> dict[str, object]:
    return {
        "name": name,
        "faceName": face_name,
        "side": side,
        "layout": "split",
        "identifiers": {"scryfallOracleId": "fire-ice"},
    } | fields


def test_faces_of_a_card_become_one_card_even_interleaved_with_a_reprint() -> None:
    german = {"language": "German", "name": "Feuer // Eis", "faceName": "Feuer"}
    ruling = {"date": "2006-09-25", "text": "Both halves."}
    fire = _face("Fire // Ice", "Fire", "a", manaCost="{1}{R}", text="Fire.", type="Instant")
    fire |= {"foreignData": [german], "rulings": [ruling]}
    ice = _face("Fire // Ice", "Ice", "b", manaCost="{1}{U}", text="Ice.", type="Instant")
    ice |= {"foreignData": [german | {"faceName": "Eis"}], "rulings": [ruling]}
    records = _parse_json({"data": {"baseSetSize": 2, "cards": [fire, fire, ice, ice]}})
    card_ref = CardRef("fire-ice", "Fire // Ice")
    assert records == [
        CardRecord(
            name="Fire // Ice",
            oracle_id="fire-ice",
            mana_cost="{1}{R} // {1}{U}",
            type_line="Instant // Instant",
            oracle_text="Fire.\n//\nIce.",
            layout="split",
            faces=("Fire", "Ice"),
            oracle_faces=(
                OracleFace("Fire", "{1}{R}", "Instant", "Fire."),
                OracleFace("Ice", "{1}{U}", "Instant", "Ice."),
            ),
        ),
        CardNameRecord(card_ref, "de", "Feuer // Eis"),
        RulingRecord(card_ref, "Both halves.", published_on=dt.date(2006, 9, 25), position=0),
    ]


def test_a_meld_parts_printed_texts_come_with_its_set() -> None:
    """A meld part's back is another card's object (the melded card), so the part is whole
    alone: its texts come in its own set's place, as any card's (they were lost before)."""
    melded = "Bruna, the Fading Light // Brisela, Voice of Nightmares"
    german = {"language": "German", "name": "Bruna, das schwindende Licht", "type": "Kreatur"}
    bruna = _face(melded, "Bruna, the Fading Light", "a", layout="meld", number="15a")
    bruna |= {"identifiers": {"scryfallOracleId": "bruna"}, "originalType": "Creature"}
    bruna |= {"foreignData": [german | {"text": "Fliegend"}]}
    set_file = {"data": {"cards": [bruna], "code": "emn", "releaseDate": "2016-07-22"}}
    records = _parse_json(set_file)
    assert [type(record).__name__ for record in records] == [
        "CardRecord",
        "CardNameRecord",
        "PrintedTextRecord",
    ]
    [text] = _of_type(records, PrintedTextRecord)
    assert (text.card, text.locale, text.face, text.text) == (
        CardRef("bruna", "Bruna, the Fading Light"),
        "de",
        0,
        "Fliegend",
    )
    assert text.printing == Printing("EMN", "15a", dt.date(2016, 7, 22))
    assert text.card_name == "Bruna, das schwindende Licht"


def test_a_modal_double_faced_cards_texts_lose_the_reminder_of_its_other_face() -> None:
    """ZNR's Agadeem's Awakening prints its back face's type and ability at its bottom; the
    page shows that face whole. A text without the reminder (MTGJSON's Russian) stays; a fuse
    card's "Fuse" line, printed across both halves, is its own text."""
    awakening = {
        "name": "Agadeem's Awakening // Agadeem, the Undercrypt",
        "faceName": "Agadeem's Awakening",
        "side": "a",
        "layout": "modal_dfc",
        "number": "90",
        "identifiers": {"scryfallOracleId": "agadeem"},
        "originalText": "Return creatures.\n\n\nLand\n{T}: Add {B}.",
        "foreignData": [
            {
                "language": "Spanish",
                "name": "Despertar",
                "text": "Regresa.\nTierra\n{T}: Agrega {B}.",
            },
            {"language": "Russian", "name": "Пробуждение", "text": "Верните."},
        ],
    }
    alive = {
        "name": "Alive // Well",
        "faceName": "Alive",
        "side": "a",
        "layout": "split",
        "identifiers": {"scryfallOracleId": "alive"},
        "originalText": "Create a Centaur.\n\n\nFuse (Cast both halves.)",
        "foreignData": [{"language": "German", "name": "Lebendig", "text": "Erzeuge.\nFusion"}],
    }
    texts = _of_type(_parse_json({"data": {"cards": [awakening, alive]}}), PrintedTextRecord)
    assert [(text.locale, text.text, text.english_text) for text in texts] == [
        ("es", "Regresa.", "Return creatures."),
        ("ru", "Верните.", "Return creatures."),
        ("de", "Erzeuge.\nFusion", "Create a Centaur.\n\n\nFuse (Cast both halves.)"),
    ]


def test_a_translations_lost_line_breaks_come_back_where_the_seams_are_the_missing_lines() -> None:
    """MTGJSON runs some translations' lines together (M14's "...angreifen.)Fliegend"). Where
    the seams found (a lower-case letter, a full stop or a bracket, then a capital or a
    symbol) are exactly the lines missing beside the English text, they part them again;
    otherwise the text stays as it is. Scripts without capitals have seams of their own:
    tested below."""
    english = "Defender (This creature can't attack.)\nFlying"
    assert lines_apart("Verteidiger (Kann nicht angreifen.)Fliegend", english, "de") == (
        "Verteidiger (Kann nicht angreifen.)\nFliegend"
    )
    tapped = "Tapped.\n{T}: Add {B}.\nCycling {2}"
    assert lines_apart("Girado.{T}: Agrega {B}.Ciclo {2}.", tapped, "es") == (
        "Girado.\n{T}: Agrega {B}.\nCiclo {2}."
    )
    assert lines_apart("ЗащитникПолет", english, "ru") == "Защитник\nПолет"
    # Two seams for one missing line, or lines apart already, or no seam to see: as it is.
    assert lines_apart("A.B.C", english, "fr") == "A.B.C"
    assert lines_apart("Verteidiger\nFliegend", english, "de") == "Verteidiger\nFliegend"
    assert lines_apart("防衛飛行", english, "ja") == "防衛飛行"  # no seam to see
    wall = {
        "name": "Angelic Wall",
        "number": "1",
        "identifiers": {"scryfallOracleId": "wall"},
        "originalText": english,
        "foreignData": [
            {"language": "German", "name": "Engelsmauer", "text": "Verteidiger.Fliegend"}
        ],
    }
    [text] = _of_type(_parse_json({"data": {"cards": [wall]}}), PrintedTextRecord)
    assert text.text == "Verteidiger.\nFliegend"


def test_lines_run_together_in_korean_japanese_and_chinese_come_apart_at_sure_seams() -> None:
    """Korean puts a space after a sentence: a full stop with a word at once after it is a
    seam (M14's Academy Raider). Japanese and Chinese put none between sentences: only a
    reminder's end before a word (M14's Japanese Angelic Wall), or a sentence's end before an
    activated or loyalty ability's cost, is one. The rule of the seams being exactly the
    missing lines holds as in other scripts: sentences one after the other in a Japanese line,
    a quoted ability's end in Korean, a reminder inside a sentence are no seams."""
    raider = "Intimidate (This creature can't be blocked.)\nWhenever Academy Raider deals damage"
    wall = "Defender (This creature can't attack.)\nFlying"
    land = "Enters tapped.\n{T}: Add {G}.\n+1: Scry 1."
    two = "Draw a card.\nFlying"
    cases = [  # locale, English, text, the text with its lines apart
        (
            "ko",
            raider,
            "위협 (이 생물은 있다.)마법학원 습격자가",
            "위협 (이 생물은 있다.)\n마법학원 습격자가",
        ),
        (
            "ko",
            "Lose 3.\nFlashback",
            "생명 3점을 잃는다.회상 {4}{R}",
            "생명 3점을 잃는다.\n회상 {4}{R}",
        ),
        ("ja", wall, "防衛（攻撃できない。）飛行", "防衛（攻撃できない。）\n飛行"),
        (
            "zh-Hans",
            land,
            "须横置进战场。{T}：加{G}。+1：占卜1。",
            "须横置进战场。\n{T}：加{G}。\n+1：占卜1。",
        ),
        ("ja", two, "カードを１枚引く。そうした場合、飛行を得る。", None),
        ("ko", two, '"{T}: 1점을 입힌다."를 얻는다.', None),
        ("zh-Hans", two, "得到{E}{E}（两个能量指示物）。", None),
    ]
    for locale, english, text, apart in cases:
        assert lines_apart(text, english, locale) == (apart or text), text


def test_lines_run_together_with_a_space_come_apart_where_the_english_lines_end() -> None:
    """SOK's German Eternal Dominion runs "Epic (...)" into the sentence before it, with a
    space: where the translation has as many sentences as the English (a reminder belongs to
    its keyword's sentence), its breaks go where the English lines end. A keyword line that
    ends no sentence ("Flying"), a break of the translation's that is no English line's end,
    a sentence more or less, and Korean (its targets are sentences of their own): as it is."""
    epic = "Search your library. Then shuffle.\nEpic (For the rest of the game. At upkeep.)"
    german = "Durchsuche deine Bibliothek. Mische dann. Episch (Für den Rest. Zu Beginn.)"
    assert lines_by_sentences(german, epic, "de") == (
        "Durchsuche deine Bibliothek. Mische dann.\nEpisch (Für den Rest. Zu Beginn.)"
    )
    shade = "{B}: Gets +1/+1 until end of turn.\nTap a Gate: Gets +2/+2 until end of turn."
    assert lines_by_sentences(
        "{B}：＋１/＋１の修整を受ける。門を１つタップする：＋２/＋２。", shade, "ja"
    ) == ("{B}：＋１/＋１の修整を受ける。\n門を１つタップする：＋２/＋２。")
    devoid = "Devoid (This card has no color.)\nWhen it enters, draw a card."
    assert lines_by_sentences(
        "Fahl (Keine Farbe.) Wenn sie ins Spiel kommt, ziehe.", devoid, "de"
    ) == ("Fahl (Keine Farbe.)\nWenn sie ins Spiel kommt, ziehe.")
    flying = "Flying\nAt the beginning of your end step, choose a card. You may return it."
    kept = [
        ("ja", flying, "飛行あなたの終了ステップの開始時に、１枚選ぶ。その後選ぶ。戻してもよい。"),
        ("de", flying, "Fliegend. Zu Beginn deines Endsegments wähle. Du kannst."),  # no sentence
        ("de", epic, "Durchsuche. Mische dann. Episch (Für den Rest.) Noch einer."),  # one more
        ("de", epic + "\nDraw a card.", "Durchsuche.\nMische dann. Episch (Rest.) Ziehe."),
        ("ko", shade, "{B}: +1/+1을 받는다. 관문 하나를 탭한다: +2/+2를 받는다."),
        ("fr", epic, "Cherchez. Puis mélangez.\nÉpique (Pour le restant.)"),  # as many lines
    ]
    for locale, english, text in kept:
        assert lines_by_sentences(text, english, locale) == text, text


def test_gatherers_old_symbols_and_a_keywords_cost_line_are_mended_in_the_english() -> None:
    """MTGJSON's ``originalText`` of older sets spells Gatherer's symbols as "oc\nT", "o2",
    "o\nR", and puts a keyword's cost on a line of its own ("Evoke—\nExile ..."): lines that
    no translation has. The English is mended before the translation is set beside it, and
    stored so."""
    quarry = (
        "oc\nT: Add one colorless mana to your mana pool.\no5, oc\nT: Add o\nWo\nUo\nBo\nRo\nG."
    )
    assert english_mended(quarry) == (
        "{T}: Add one colorless mana to your mana pool.\n{5}, {T}: Add {W}{U}{B}{R}{G}."
    )
    assert english_mended("o1oo\nB Battlefield Percher gets +1/+1.\nCycling o2") == (
        "{1}{B} Battlefield Percher gets +1/+1.\nCycling {2}"
    )
    assert english_mended("Evoke—\nExile a red card.") == "Evoke—Exile a red card."
    modes = "Choose one —\n• Draw a card.\nWhen Man-o'-War enters, return two\nWhite."
    assert english_mended(modes) == modes  # a mode's line, words with an "o": as they are
    printed = as_printed(
        "normal",
        "Flying\no2o\nB, Sacrifice a creature: Draw.",
        "Fliegend\n{2}{B}, opfere eine Kreatur: Ziehe. ",
        None,
        "de",
    )
    assert printed.english == "Flying\n{2}{B}, Sacrifice a creature: Draw."


def test_a_line_separator_in_a_translation_is_a_line_break() -> None:
    """FUT's Spanish texts part their lines with U+2028, shown inside one paragraph."""
    assert one_kind_of_break("Prisa.\u2028Temerario") == "Prisa.\nTemerario"
    assert one_kind_of_break("Prisa.") == "Prisa."
    assert one_kind_of_break(None) is None


def test_words_spaced() -> None:
    assert words_spaced("Существо — Зомби Летучая_мышь") == "Существо — Зомби Летучая мышь"
    assert words_spaced("Существо — Летучая-мышь") == "Существо — Летучая-мышь"
    assert words_spaced(None) is None


def test_gatherers_japanese_glyphs_left_as_letters_are_mended() -> None:
    """PTK's Japanese tap symbol "(Ｔ)" is the symbol; KTK's stray "ｆ" after a reminder goes."""
    assert without_stray_glyphs("(Ｔ)：カードを１枚引く。") == "{T}：カードを１枚引く。"
    assert without_stray_glyphs("探査（…支払う。）ｆ\n飛行") == "探査（…支払う。）\n飛行"
    assert without_stray_glyphs("ｆは") == "ｆは"  # not after a reminder: as it is
    assert without_stray_glyphs(None) is None


def test_mana_given_as_capital_letters_becomes_symbols() -> None:
    """Older German translations give mana as letters ("3BBB") where the English, and the
    card, print symbols; only where the translation has fewer symbols than the English."""
    english = "During your upkeep, pay {3}{B}{B}{B} or sacrifice it."
    assert letters_as_symbols(
        "Bezahle während Deiner Versorgungsphase 3BBB oder opfere.", english
    ) == ("Bezahle während Deiner Versorgungsphase {3}{B}{B}{B} oder opfere.")
    tap = "{T}: Add {G} to your mana pool.\n{W}, Sacrifice: X."
    assert letters_as_symbols("{T}: Erhöhe Deinen Manavorrat um G.\nW, opfere: X.", tap) == (
        "{T}: Erhöhe Deinen Manavorrat um {G}.\n{W}, opfere: X."
    )
    kept = "Kumulative Versorgung {1}{U}\n+X/+X, 0/1, B-Movie, UB40, {B}, X Schaden, WURM"
    assert letters_as_symbols(kept, english) == kept
    assert letters_as_symbols("Zahle G.", "Pay G.") == "Zahle G."  # no symbol missing
    assert letters_as_symbols("Zahle G.", None) == "Zahle {G}."  # no English to tell
    assert letters_as_symbols("Zahle G, z.B. so.", "Pay {G}.") == "Zahle {G}, z.B. so."
    assert letters_as_symbols(None, english) is None


def test_line_breaks_inside_a_sentence_are_joined_where_the_english_has_fewer_lines() -> None:
    """AFR's Blue Dragon in French breaks a sentence over two lines, where the English has it
    on one; a break is joined only where the breaks found are exactly the lines too many."""
    english = "Flying\nLightning Breath — When Blue Dragon enters the battlefield, until..."
    broken = "Vol\nSouffle de foudre— Quand le Dragon bleu arrive\nsur le champ de bataille, ..."
    assert lines_joined(broken, english) == (
        "Vol\nSouffle de foudre— Quand le Dragon bleu arrive sur le champ de bataille, ..."
    )
    assert lines_joined("Vol\nvigilance", "Flying\nVigilance") == "Vol\nvigilance"  # as many
    # Two lines too many, one break: not sure which lines are the card's.
    assert lines_joined("Vol\nvigilance\nCélérité", "Flying") == "Vol\nvigilance\nCélérité"
    assert lines_joined("飛行\n警戒", "Flying") == "飛行\n警戒"  # no capitals: no sure break
    reminder = "Reach (It can block creatures\nwith flying.)"
    assert lines_joined("Portée. (Elle peut bloquer les créatures\navec le vol.)", reminder) == (
        "Portée. (Elle peut bloquer les créatures\navec le vol.)"
    )
    assert lines_joined("Portée. (Elle peut bloquer les créatures\navec le vol.)", "Reach") == (
        "Portée. (Elle peut bloquer les créatures avec le vol.)"
    )


def test_gatherers_escaped_markup_leaves_a_translation() -> None:
    """MTGJSON keeps Gatherer's markup, escaped, in some translations (TSR, MH2, DKA, AVR,
    KHM), and the page showed it as text."""
    assert without_markup("Flankenangriff &lt;I&gt;(Immer wenn...)&lt;/I&gt;\nAussetzen 3") == (
        "Flankenangriff (Immer wenn...)\nAussetzen 3"
    )
    assert without_markup("y luego barajar.&lt;/line&gt;\n&lt;line&gt;Sacrificar") == (
        "y luego barajar.\nSacrificar"
    )
    assert without_markup("&gt;喪心～當醒夜舞者。具有威嚇異能。&gt;（此生物）") == (
        "喪心～當醒夜舞者。具有威嚇異能。（此生物）"
    )
    assert without_markup("獲得兩個中毒指示物。&amp;") == "獲得兩個中毒指示物。"
    assert (
        without_markup("Vous gagnez 1 point de vie & plus") == "Vous gagnez 1 point de vie & plus"
    )
    knight = {
        "name": "Riftmarked Knight",
        "number": "38",
        "identifiers": {"scryfallOracleId": "knight"},
        "originalText": "Flanking (Whenever...)",
        "foreignData": [
            {"language": "German", "name": "Ritter", "text": "Flankenangriff &lt;I&gt;(Immer)"}
        ],
    }
    [text] = _of_type(_parse_json({"data": {"cards": [knight]}}), PrintedTextRecord)
    assert text.text == "Flankenangriff (Immer)"


def test_a_translation_that_is_the_english_text_is_no_printed_text() -> None:
    """AFR's Trelasarra, Moon Dancer has its English type line and text in all ten languages;
    the pages showed them as each locale's printed text. In Latin letters only a sentence
    counts: French "Vigilance" is French. A Japanese text stays, even where MTGJSON's English
    is that Japanese text too."""
    english = "Whenever you gain life, put a +1/+1 counter on Trelasarra."
    assert english_copy(english, english, "de")
    assert english_copy(english, english, "ja")
    assert english_copy("Flying", "Flying", "ja")
    assert not english_copy("Vigilance", "Vigilance", "fr")
    assert not english_copy("Ninjutsu {3}{B}", "Ninjutsu {3}{B}", "de")
    assert not english_copy("Wann immer du Lebenspunkte erhältst, ...", english, "de")
    japanese = "+2：各プレイヤーはそれぞれカードを１枚引く。"
    assert not english_copy(japanese, japanese, "ja")
    trelasarra = {
        "name": "Trelasarra, Moon Dancer",
        "number": "236",
        "identifiers": {"scryfallOracleId": "trelasarra"},
        "originalText": english,
        "originalType": "Legendary Creature — Elf Cleric",
        "foreignData": [
            {
                "language": language,
                "name": "Trelasarra, Moon Dancer",
                "text": text,
                "type": "Legendary Creature — Elf Cleric",
            }
            for language, text in (("German", english), ("French", "Vigilance"))
        ],
    }
    [text] = _of_type(_parse_json({"data": {"cards": [trelasarra]}}), PrintedTextRecord)
    assert (text.locale, text.text) == ("fr", "Vigilance")


def test_a_translated_type_line_keeps_its_own_separator_once() -> None:
    """MTGJSON writes some translated type lines with a hyphen after their separator, which
    the cards do not print; an old printing's hyphen alone ("Kreatur - Mensch") is printed."""
    assert one_separator("クリーチャー ― - ゾンビ・兵士") == "クリーチャー ― ゾンビ・兵士"
    assert one_separator("Créature : - zombie et soldat") == "Créature : zombie et soldat"
    assert one_separator("生物～ - 殭屍／士兵") == "生物～殭屍／士兵"
    assert one_separator("Существо — - Атог") == "Существо — Атог"
    assert one_separator("Kreatur - Mensch, Kleriker") == "Kreatur - Mensch, Kleriker"
    atog = {
        "name": "Atog",
        "number": "1",
        "identifiers": {"scryfallOracleId": "atog"},
        "originalType": "Creature — Atog",
        "foreignData": [{"language": "Russian", "name": "Атог", "type": "Существо — - Атог"}],
    }
    [text] = _of_type(_parse_json({"data": {"cards": [atog]}}), PrintedTextRecord)
    assert text.type_line == "Существо — Атог"


def test_a_card_whose_other_face_never_comes_keeps_its_texts_and_their_set() -> None:
    """A face whose card the file never completes (an excerpt, a promo of one face) comes at
    the file's end, with its printed texts, each of the set it was read in."""
    german = {"language": "German", "name": "Feuer // Eis", "faceName": "Feuer", "type": "Spontan"}
    fire = _face("Fire // Ice", "Fire", "a", number="1", originalType="Instant")
    fire |= {"foreignData": [german | {"text": "Feuer."}]}
    early = {"cards": [fire], "code": "AAA", "releaseDate": "2001-01-01"}
    late = {"cards": [], "code": "BBB", "releaseDate": "2020-01-01"}
    records = _parse_json({"meta": {}, "data": {"AAA": early, "BBB": late}})
    assert [type(record).__name__ for record in records] == [
        "CardRecord",
        "CardNameRecord",
        "PrintedTextRecord",
    ]
    [text] = _of_type(records, PrintedTextRecord)
    assert (text.text, text.face_name) == ("Feuer.", "Feuer")
    assert text.printing == Printing("AAA", "1", dt.date(2001, 1, 1))


@pytest.mark.parametrize(
    ("card", "reason"),
    [
        ({"name": 7}, "card 1: name 7 is not a string"),
        (
            {"name": "X", "rulings": [{"date": "x", "text": "t"}]},
            "card 1 ruling 1: date 'x' is not",
        ),
        ({"name": "X", "rulings": [{"date": "2020-01-01"}]}, "card 1 ruling 1: text (missing)"),
        ({"name": "X", "foreignData": [{"name": "Y"}]}, "card 1 foreignData: language (missing)"),
        ({"name": "X", "rulings": "none"}, "card 1: rulings 'none' is not a list of objects"),
    ],
)
def test_wrong_types_name_the_card(card: dict[str, object], reason: str) -> None:
    with pytest.raises(ParseError) as raised:
        _parse_json({"data": {"baseSetSize": 1, "cards": [card]}})
    assert str(raised.value).startswith(f"cards.json: {reason}")


def test_not_mtgjson_and_truncated_files_are_parse_errors() -> None:
    with pytest.raises(ParseError, match="not an MTGJSON set"):
        _parse_json([{"object": "card"}])
    truncated = json.dumps(_excerpt()).encode()[:20_000]
    with pytest.raises(ParseError, match=r"^OTJ\.json: truncated or invalid JSON"):
        list(mtgjson.parse(io.BytesIO(truncated), "OTJ.json"))


@pytest.mark.realdata
def test_whole_2022_corpus() -> None:
    inputs = list(streams.iter_inputs(realdata("mtgjson-sets-2022-05")))
    assert len(inputs) == 579
    cards_by_key: dict[str, CardRecord] = {}
    links: set[tuple[CardRef, str]] = set()
    foreign_languages: Counter[str] = Counter()
    for source in inputs:
        with streams.open_input(source) as stream:
            for record in mtgjson.parse(stream, source.name):
                if isinstance(record, CardRecord):
                    cards_by_key[record.oracle_id or record.name] = record
                elif isinstance(record, RulingRecord):
                    links.add((record.card, record.text))
                elif isinstance(record, CardNameRecord):
                    foreign_languages[record.locale] += 1

    # The README counts 45,080 links and 23,597 texts per MTGJSON card name, with the empty ruling
    # text that six printings of Wandering Archaic carry. The parser drops that empty text and
    # names a card by its Oracle id, which gives 45,080 links too: Un-card variants that share a
    # name ("Sly Spy") are distinct cards, and the 10 reversible printings (Secret Lair), which
    # carry no oracle id, name their card by its plain name ("Zndrsplt, Eye of Wisdom").
    assert len(links) == 45_080
    cards_per_text = Counter(text for _, text in links)
    assert len(cards_per_text) == 23_597 - 1
    # The README's 2,338 shared texts, and Sly Spy's ruling shared by Un-card variants of one name.
    assert sum(1 for count in cards_per_text.values() if count >= 2) == 2_338 + 1
    [(most_shared, count)] = cards_per_text.most_common(1)
    assert most_shared.startswith("Cycling is an activated ability")
    assert count == 124
    # Across files only the loader can tell a reversible printing's card from the same card
    # elsewhere. Resolved by name, as the loader does, 34 of those links are repeats, and 6 texts
    # were "shared" only by a reversible printing and its own card (Propaganda, Krark's Thumb).
    oracle_ids_by_name: defaultdict[str, set[str]] = defaultdict(set)
    for card in cards_by_key.values():
        if card.oracle_id is not None:
            oracle_ids_by_name[card.name].add(card.oracle_id)
    resolved = {
        (ref.oracle_id or min(oracle_ids_by_name.get(str(ref.name), {str(ref.name)})), text)
        for ref, text in links
    }
    assert len(resolved) == 45_080 - 34
    resolved_cards_per_text = Counter(text for _, text in resolved)
    assert sum(1 for count in resolved_cards_per_text.values() if count >= 2) == 2_338 + 1 - 6

    print_languages = {"de", "fr", "it", "es", "pt-BR", "ja", "ko", "ru", "zh-Hans", "zh-Hant"}
    raw_spellings = {"Phyrexian", "Sanskrit", "Latin", "Hebrew", "Arabic", "Ancient Greek"}
    assert set(foreign_languages) == print_languages | raw_spellings

    cards_by_name = {card.name: card for card in cards_by_key.values()}
    who = cards_by_name["Who // What // When // Where // Why"]
    assert (who.layout, who.faces) == ("split", ("Who", "What", "When", "Where", "Why"))
    assert who.mana_cost == "{X}{W} // {2}{R} // {2}{U} // {3}{B} // {1}{G}"
    adventure = cards_by_name["Brazen Borrower // Petty Theft"]
    assert (adventure.layout, adventure.faces) == ("adventure", ("Brazen Borrower", "Petty Theft"))
    flip = cards_by_name["Bushi Tenderfoot // Kenzo the Hardhearted"]
    assert (flip.layout, flip.mana_cost) == ("flip", "{W}")  # the flipped face has no cost
    assert flip.faces == ("Bushi Tenderfoot", "Kenzo the Hardhearted")
    # Each part of a meld pair is its own Oracle card, with its own Scryfall oracle id; a front
    # part knows the melded card on its back as its second face.
    meld_parts = [
        "Bruna, the Fading Light",
        "Gisela, the Broken Blade",
        "Brisela, Voice of Nightmares",
    ]
    meld = [cards_by_name[name] for name in meld_parts]
    melded = "Brisela, Voice of Nightmares"
    assert [(card.layout, card.faces) for card in meld] == [
        ("meld", ("Bruna, the Fading Light", melded)),
        ("meld", ("Gisela, the Broken Blade", melded)),
        ("meld", ()),
    ]
    assert len({card.oracle_id for card in meld}) == 3
    reversible = cards_by_name["Zndrsplt, Eye of Wisdom"]
    assert reversible.faces == ()


def test_a_sets_printed_texts_name_their_printing_the_highest_ranking_once() -> None:
    """The set's code and release date (after its cards in the file), each card's number; of
    two printings in one set, the higher collector number's text, once."""
    german = {"language": "German", "name": "Blitzschlag", "type": "Spontanzauber"}
    bolt = {
        "name": "Lightning Bolt",
        "identifiers": {"scryfallOracleId": "bolt"},
        "originalText": "Lightning Bolt deals 3 damage to any target.",
        "originalType": "Instant",
    }
    cards = [
        bolt | {"number": "9", "foreignData": [german | {"text": "Alt."}]},
        bolt | {"number": "105", "foreignData": [german | {"text": "Neu."}]},
        bolt | {"number": "42", "foreignData": [german | {"text": "Mittel."}]},
    ]
    document = {"data": {"cards": cards, "code": "sta", "releaseDate": "2021-04-23"}}
    texts = _of_type(_parse_json(document), PrintedTextRecord)
    assert texts == [
        PrintedTextRecord(
            CardRef("bolt", "Lightning Bolt"),
            "de",
            face=0,
            face_name=None,
            type_line="Spontanzauber",
            text="Neu.",
            english_type_line="Instant",
            english_text="Lightning Bolt deals 3 damage to any target.",
            printing=Printing("STA", "105", dt.date(2021, 4, 23)),
            card_name="Blitzschlag",
        )
    ]


def test_a_printing_under_a_promotional_or_damaged_name_gives_its_text_but_no_name() -> None:
    """IKO's Godzilla-series Mysterious Egg is "Mothra's Great Cocoon", and MTGJSON's Japanese
    name of it "不思議な卵 (モスラの巨大な繭)": its printed text names no card."""
    egg = {
        "name": "Mysterious Egg",
        "identifiers": {"scryfallOracleId": "egg"},
        "foreignData": [{"language": "Japanese", "name": "不思議な卵", "text": "卵。"}],
    }
    cocoon = egg | {
        "number": "385",
        "flavorName": "Mothra's Great Cocoon",
        "foreignData": [
            {"language": "Japanese", "name": "不思議な卵 (モスラの巨大な繭)", "text": "卵。"}
        ],
    }
    # M21's showcase Liliana's Standard Bearer: MTGJSON's Japanese name cut off in its ruby.
    cut = egg | {
        "number": "299",
        "foreignData": [{"language": "Japanese", "name": "不思議な卵（しゅ", "text": "卵。"}],
    }
    for face, name in ((egg | {"number": "3"}, "不思議な卵"), (cocoon, None), (cut, None)):
        document = {"data": {"cards": [face], "code": "IKO", "releaseDate": "2020-04-24"}}
        [text] = _of_type(_parse_json(document), PrintedTextRecord)
        assert (text.text, text.card_name) == ("卵。", name)


def test_printings_rank_by_date_then_set_then_number() -> None:
    day = dt.date(2021, 4, 23)
    ranked = [
        Printing(),
        Printing("ZZZ", "999", None),
        Printing("AAA", "1", day),
        Printing("AAA", "2", day),
        Printing("AAA", "10", day),
        Printing("AAA", "10a", day),
        Printing("AAB", "1", day),
        Printing("AAA", "1", day + dt.timedelta(days=1)),
    ]
    assert sorted(reversed(ranked), key=lambda printing: printing.rank) == ranked


def test_an_all_printings_set_of_a_bad_release_date_names_the_set() -> None:
    with pytest.raises(ParseError) as raised:
        _parse_json({"meta": {}, "data": {"OTX": {"cards": [], "releaseDate": "2024"}}})
    assert str(raised.value) == "cards.json: set OTX: releaseDate '2024' is not a date YYYY-MM-DD"
