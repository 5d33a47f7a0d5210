"""The printed-text repairs of kb/importers/mtgjson_texts.py, each alone and some as the MTGJSON
parser applies them to a card's translations."""

from __future__ import annotations

from conftest import of_type, parse_mtgjson

from kb.importers.mtgjson_texts import (
    as_printed,
    breaks_out_of_brackets,
    english_copy,
    english_mended,
    english_type_copied,
    letters_as_symbols,
    lines_apart,
    lines_by_sentences,
    lines_joined,
    lines_trimmed,
    one_kind_of_break,
    one_separator,
    without_markup,
    without_stray_glyphs,
    words_spaced,
)
from kb.records import PrintedTextRecord


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
    texts = of_type(parse_mtgjson({"data": {"cards": [awakening, alive]}}), PrintedTextRecord)
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
    [text] = of_type(parse_mtgjson({"data": {"cards": [wall]}}), PrintedTextRecord)
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
    [text] = of_type(parse_mtgjson({"data": {"cards": [knight]}}), PrintedTextRecord)
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
    [text] = of_type(parse_mtgjson({"data": {"cards": [trelasarra]}}), PrintedTextRecord)
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
    [text] = of_type(parse_mtgjson({"data": {"cards": [atog]}}), PrintedTextRecord)
    assert text.type_line == "Существо — Атог"


def test_a_type_line_in_latin_letters_where_the_locale_writes_none_is_the_english() -> None:
    assert english_type_copied("Land", "ja") and english_type_copied("Land", "ru")
    assert not english_type_copied("Land", "de")  # German "Land"
    assert not english_type_copied("土地", "ja") and not english_type_copied(None, "ja")
    printed = as_printed("normal", "{T}: Add {C}.", "{T}：{C}を加える。", "Land", "ja")
    assert (printed.text, printed.type_line) == ("{T}：{C}を加える。", None)


def test_a_translations_lines_lose_their_edge_spaces_and_blank_lines() -> None:
    # FUT's German Ghost en-Dal (Spirit en-Dal), as MTGJSON gives it.
    spaced = "Irrealität (...)\n Vorhersage {1}{W}, ...\n\nWahnsinn {2}{B} "
    assert lines_trimmed(spaced) == "Irrealität (...)\nVorhersage {1}{W}, ...\nWahnsinn {2}{B}"
    assert lines_trimmed("Fliegend\nEile") == "Fliegend\nEile"
    assert lines_trimmed(None) is None


def test_a_break_inside_a_reminder_moves_to_the_seam_the_english_breaks_at() -> None:
    # ONS's German Ascending Aven, as MTGJSON gives it.
    english = (
        "Flying\nAscending Aven can block only creatures with flying.\n"
        "Morph {2}{U} (You may cast this card face down as a 2/2 creature for {3}. Turn it face"
        " up any time for its morph cost.)"
    )
    german = (
        "Fliegend\nDer Aufsteigende Avior kann nur fliegende Kreaturen blocken.Morph {2}{U} (Du"
        " kannst diese Karte verdeckt für {3} als eine 2/2 Kreatur spielen.\nDecke sie zu einem"
        " beliebigen Zeitpunkt für ihre Morph-Kosten auf.)"
    )
    assert breaks_out_of_brackets(german, english, "de") == (
        "Fliegend\nDer Aufsteigende Avior kann nur fliegende Kreaturen blocken.\nMorph {2}{U} (Du"
        " kannst diese Karte verdeckt für {3} als eine 2/2 Kreatur spielen. Decke sie zu einem"
        " beliebigen Zeitpunkt für ihre Morph-Kosten auf.)"
    )
    # No seam to part at: the text stays as it is.
    assert breaks_out_of_brackets("A (b\nc)", "X\nY", "de") == "A (b\nc)"
    assert breaks_out_of_brackets("Fliegend\nEile", "Flying\nHaste", "de") == "Fliegend\nEile"


def test_a_hybrid_symbols_slash_as_a_break_is_mended_in_the_english() -> None:
    # SHM's Beseech the Queen, as MTGJSON's originalText gives it.
    english = "({2\nB} can be paid with any two mana or with {B}.)\nSearch your library ..."
    assert english_mended(english) == (
        "({2/B} can be paid with any two mana or with {B}.)\nSearch your library ..."
    )
    assert english_mended("{2}{B}\nDraw a card.") == "{2}{B}\nDraw a card."


def test_a_symbol_run_together_with_a_capital_is_a_seam() -> None:
    # UGIN's French Ghostfire Blade: two seams for the two lines MTGJSON lost.
    english = "Equipped creature gets +2/+2.\nEquip {3}\nGhostfire Blade's equip ability ..."
    french = "La créature équipée gagne +2/+2.Équipement {3}La capacité d'équipement ..."
    assert lines_apart(french, english, "fr") == (
        "La créature équipée gagne +2/+2.\nÉquipement {3}\nLa capacité d'équipement ..."
    )
    # Symbols one after the other are no seam.
    assert lines_apart("{2}{W}Fliegend", "{2}{W}\nFlying", "de") == "{2}{W}\nFliegend"
