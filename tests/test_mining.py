"""The miner on small samples written here: each case of docs/mining.md on its own. Here the
actions named by contrast; tests/test_mining_lines.py has the names read off keyword and type
lines."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from mining_samples import OTHER, SCRY, counter_samples, names, sample

from kb.mining.actions import MIN_CONTRAST_CARDS, occurrences
from kb.mining.mine import mine
from kb.mining.packed import PackedTexts


def contrasted(
    keyword: str, having: list[tuple[str, str]], others: list[tuple[str, str]], locale: str
) -> dict[tuple[str, str], str]:
    """The names mined from cards that have ``keyword`` and cards that do not, each an English
    text and its translation into ``locale``."""
    samples = [
        sample(f"{kind}{index}", keywords, english, localized, locale=locale)
        for kind, keywords, rows in (("K", (keyword,), having), ("O", (), others))
        for index, (english, localized) in enumerate(rows)
    ]
    return names(samples, minimum=3)


def test_an_action_inside_sentences_is_named_by_contrast() -> None:
    samples = [
        sample(f"{kind}{index}", keywords, english, text, locale=locale)
        for kind, keywords, rows in (("S", ("Scry",), SCRY), ("O", (), OTHER))
        for index, (english, *texts) in enumerate(rows)
        for locale, text in zip(("de", "ja"), texts, strict=True)
    ]
    mined = mine(samples, minimum=3)
    assert mined.actions == {"Scry"}
    by_key = {(n.mechanic, n.locale): n for n in mined.mechanics}
    assert {key: n.name for key, n in by_key.items()} == {
        ("Scry", "de"): "Hellsicht",
        # Japanese puts the verb last ("占術2を行う"): the name is the run with no hiragana.
        ("Scry", "ja"): "占術",
    }
    assert {n.method for n in by_key.values()} == {"contrast"}


def test_an_umbrella_said_only_inside_a_longer_keyword_is_not_named() -> None:
    """MTGJSON lists Landcycling beside Basic landcycling: no card says the umbrella alone, so
    the contrast has no card that votes for it (it named it "Básicas" in Spanish)."""
    basic = [
        sample(
            f"B{index}",
            ("Basic landcycling", "Landcycling"),
            f"Flying\nBasic landcycling {{{index}}}",
            f"Fliegend\nStandardlandumwandlung {{{index}}}",
        )
        for index in range(1, 5)
    ]
    others = [sample(f"O{index}", (), e, de) for index, (e, de, _ja) in enumerate(OTHER)]
    mined = mine(basic + others, minimum=3)
    assert "Landcycling" not in mined.actions  # no card says it
    assert [(n.mechanic, n.locale, n.name, n.method) for n in mined.mechanics] == [
        ("Basic landcycling", "de", "Standardlandumwandlung", "line"),
    ]


def test_an_ability_word_old_printings_lack_is_named_by_its_lines() -> None:
    """MTGJSON lists Domain on old printings that print no ability word: only the cards whose
    English says the keyword tell whether it starts their lines (Spanish Domain was "Básica
    entre", of "tierra básica entre las tierras que controlas", when it was taken for an action)."""
    printed = [
        sample(
            f"N{index}",
            ("Domain",),
            f"Domain — A gets +{index}/+0 for each basic land type among lands you control.",
            f"Dominio — A obtiene +{index}/+0 por cada tipo de tierra básica entre tus tierras.",
            locale="es",
        )
        for index in range(1, 4)
    ]
    old = [
        sample(
            f"O{index}",
            ("Domain",),
            f"Draw {index} cards for each basic land type among lands you control.",
            f"Roba {index} cartas por cada tipo de tierra básica entre tus tierras.",
            locale="es",
        )
        for index in range(1, 5)
    ]
    mined = mine(printed + old, minimum=3)
    assert mined.actions == frozenset()
    assert [(n.mechanic, n.name, n.method) for n in mined.mechanics] == [
        ("Domain", "Dominio", "line")
    ]


def test_a_word_of_one_card_is_no_name() -> None:
    """Korean Meld was 쥐떼와 ("with the rat swarm"), on one of its cards: a word no other
    text holds outranked the name, which other texts hold too."""
    creatures = ("Ratten", "Ghoule", "Engel", "Zombies")
    having = [("Then meld them.", f"Verschmilz {name}.") for name in creatures]
    others = [("Draw a card.", "Ziehe eine Karte, verschmilz.")] * 12
    assert contrasted("Meld", having, others, "de") == {("Meld", "de"): "Verschmilz"}


def test_three_cards_of_one_sentence_name_nothing_by_contrast() -> None:
    """Meld's three cards say one sentence, each of whose words is on all three: Italian named
    it "Se possiedi" ("if you own"). Contrast needs MIN_CONTRAST_CARDS."""
    sentence = "Se possiedi e controlli A e B, esiliali, poi combinali in {}."
    having = [
        ("If you own A and B, exile them, then meld them.", sentence.format(name)) for name in "XYZ"
    ]
    others = [("Draw a card.", "Pesca una carta.")] * 12
    assert MIN_CONTRAST_CARDS == 4
    assert contrasted("Meld", having, others, "it") == {}
    fourth = ("If you own C and D, exile them, then meld them.", sentence.format("W"))
    assert contrasted("Meld", [*having, fourth], others, "it") != {}


def test_a_word_counts_elsewhere_as_a_whole_word() -> None:
    """French Fight is printed "se bat": "se" is a word of many other texts, "bat" of none
    ("bataille" holds the letters, not the word), so "bat" names it. Counted as letters, "bat"
    stood as often elsewhere as "se", and the import named Fight "Se"."""
    fights = [
        ("A fights B.", "A se bat contre B."),
        ("C fights D.", "C se bat contre D."),
        ("E fights F.", "E se bat contre F."),
        ("Two creatures fight each other.", "Deux créatures se battent."),
    ]
    others = [("Untap it.", "Elle se dégage contre la bataille, de la bataille.")] * 30
    assert occurrences("se bat, chose, bataille, se", "se", "fr") == 2
    assert occurrences("se bat, chose, bataille, se", "bat", "fr") == 1
    assert occurrences("se bat, puis se bat", "se bat", "fr") == 2
    assert occurrences("格闘を行う。格闘", "格闘", "ja") == 2
    assert contrasted("Fight", fights, others, "fr") == {("Fight", "fr"): "Bat"}


FIGHT = [  # English, German: "gegen" stands on every card, "kämpft" on three of four
    ("Target creature you control fights target creature.", "Kreatur A kämpft gegen Kreatur B."),
    ("When A enters, it fights up to one target creature.", "Wenn A kommt, kämpft A gegen B."),
    ("A fights another target creature.", "A kämpft gegen eine andere Kreatur deiner Wahl."),
    ("Two target creatures fight each other.", "Zwei Kreaturen kämpfen gegen einander."),
]


def test_a_lone_preposition_is_no_name() -> None:
    others = [(english, german) for english, german, _ in OTHER]
    assert contrasted("Fight", FIGHT, others, "de") == {("Fight", "de"): "Kämpft"}


CLASH = [  # English, Russian as LRW prints it: "Если вы выиграли" (if you won) on every card
    (
        "Clash with an opponent. If you win, draw a card.",
        "Столкнитесь с оппонентом. Если вы выиграли, возьмите карту.",
    ),
    (
        "When A dies, clash with an opponent. If you win, untap A.",
        "Когда A умирает, столкнитесь с оппонентом. Если вы выиграли, разверните A.",
    ),
    (
        "Destroy target creature. Clash with an opponent. If you win, draw a card.",
        "Уничтожьте целевое существо. Столкнитесь с оппонентом. Если вы выиграли, возьмите карту.",
    ),
    (
        "When A enters, clash with an opponent.\nIf you won a clash, A gets +1/+1.",
        "Когда A выходит, столкнитесь с оппонентом.\nЕсли вы выиграли, A получает +1/+1.",
    ),
    (  # said otherwise in the one sentence: only its lines tell where to look
        "Clash with an opponent. If you win, tap A.",
        "Вы сталкиваетесь с оппонентом. Если вы выиграли, поверните A.",
    ),
]
RUSSIAN_OTHER = [
    ("Exchange control of A with an opponent.", "Обменяйтесь с оппонентом контролем над A."),
    (
        "Choose an opponent. A deals 2 damage to them.",
        "Выберите оппонента. A наносит 2 повреждения.",
    ),
    ("Exchange life totals with an opponent.", "Обменяйтесь с оппонентом итогами жизней."),
    ("Vote with an opponent.", "Голосуйте с оппонентом."),
    ("Draw a card.", "Возьмите карту."),
    ("Destroy target creature.", "Уничтожьте целевое существо."),
    ("Tap target creature.", "Поверните целевое существо."),
]


def test_an_action_is_named_by_the_sentences_whose_english_says_it() -> None:
    """The words of "Если вы выиграли" stand on all five cards, the name on four (each won
    before): where lines and sentences match the English, only those that say it count."""
    assert contrasted("Clash", CLASH, RUSSIAN_OTHER, "ru") == {("Clash", "ru"): "Столкнитесь"}


EXPLORE = [  # English, Simplified Chinese as printed (XLN 191, RIX 15, RIX 55, XLN 216): 令它勘察
    ("When A enters, it explores.", "当日升探寻者进战场时，令它勘察。"),
    ("When B enters, it explores.", "当女王密探进战场时，令它勘察。"),
    ("When C enters, it explores.", "当莽霸联盟海贼进战场时，令它勘察。"),
    (
        "Whenever a creature you control explores, you gain 3 life.",
        "每当一个由你操控的生物勘察时，你获得3点生命。",
    ),
]
CHINESE_OTHER = [
    ("When D enters, draw a card.", "当D进战场时，抓一张牌。"),
    ("When E enters, destroy target creature.", "当E进战场时，消灭目标生物。"),
    ("When F enters, you gain 2 life.", "当F进战场时，你获得2点生命。"),
    ("When G enters, scry 1.", "当G进战场时，占卜1。"),
]


def test_a_chinese_name_is_not_run_together_with_a_pronoun() -> None:
    """Every candidate is on all the cards; a tie went to the run that sorts last (它勘)."""
    mined = contrasted("Explore", EXPLORE, CHINESE_OTHER, "zh-Hans")
    assert mined == {("Explore", "zh-Hans"): "勘察"}


KOREAN_EXPLORE = [  # as printed (XLN 191, RIX 15): "... 탐험을 한다" (it does an exploring)
    ("When A enters, it explores.", "일출 추적자가 전장에 들어올 때, 일출 추적자는 탐험을 한다."),
    (
        "When B enters, it explores.",
        "여왕의 대리인이 전장에 들어올 때, 여왕의 대리인은 탐험을 한다.",
    ),
    ("Whenever C attacks, it explores.", "C가 공격할 때마다, C는 탐험을 한다."),
    (  # XLN 216
        "Whenever a creature you control explores, you gain 3 life.",
        "당신이 조종하는 생물이 탐험을 할 때마다, 당신은 생명 3점을 얻는다.",
    ),
]
KOREAN_OTHER = [
    ("When D enters, draw a card.", "D가 전장에 들어올 때, 카드 한 장을 뽑는다."),
    ("Destroy target creature.", "생물 한 개를 목표로 정한다. 그 생물을 파괴한다."),
    ("When E enters, you gain 2 life.", "E가 전장에 들어올 때, 당신은 생명점 2점을 얻는다."),
]


def test_a_korean_action_is_named_without_its_ending_or_particle() -> None:
    mined = contrasted("Explore", KOREAN_EXPLORE, KOREAN_OTHER, "ko")
    assert mined == {("Explore", "ko"): "탐험"}


def test_an_action_that_starts_its_lines_is_named_by_contrast_when_told() -> None:
    samples = counter_samples()
    # Three lines of four start with "Counter": by its lines alone it is an ability, and the
    # name would be what those lines share with their objects.
    assert mine(samples, minimum=3).actions == frozenset()
    told = mine(samples, minimum=3, also_actions=frozenset({"Counter"}))
    assert told.actions == {"Counter"}
    assert [(n.mechanic, n.locale, n.name, n.method) for n in told.mechanics] == [
        ("Counter", "de", "Neutralisiere", "contrast")
    ]


JAPANESE_COUNTER = [  # as the cards print them (Cancel, M21 46: "それを打ち消す。")
    ("Counter target spell.", "呪文１つを対象とし、それを打ち消す。"),
    ("Counter target creature spell.", "クリーチャー・呪文１つを対象とし、それを打ち消す。"),
    ("Counter target activated ability.", "起動型能力１つを対象とし、それを打ち消す。"),
    (
        "Draw a card, then counter target spell.",
        "カードを１枚引く。その後、呪文１つを対象とし、それを打ち消す。",
    ),
]


def test_a_japanese_action_that_is_a_verb_is_named_with_its_okurigana() -> None:
    """Japanese candidates hold no hiragana (a particle, an inflection), but for a verb written
    with its okurigana, one kana after each kanji run: 打ち消す, not 呪文 ("spell")."""
    samples = [
        sample(f"{kind}{index}", keywords, english, japanese, locale="ja")
        for kind, keywords, rows in (
            ("C", ("Counter",), JAPANESE_COUNTER),
            ("O", (), [(english, japanese) for english, _, japanese in OTHER + SCRY]),
        )
        for index, (english, japanese) in enumerate(rows)
    ]
    told = mine(samples, minimum=3, also_actions=frozenset({"Counter"}))
    assert [(n.mechanic, n.locale, n.name) for n in told.mechanics] == [
        ("Counter", "ja", "打ち消す")
    ]


@settings(max_examples=200, deadline=None)
@given(
    texts=st.lists(st.text(max_size=300), max_size=60),
    step=st.integers(min_value=1, max_value=70),
    more=st.lists(st.text(max_size=40), max_size=5),
)
def test_packed_texts_are_the_list_of_the_texts_appended(
    texts: list[str], step: int, more: list[str]
) -> None:
    """The contrast keeps every text compressed (kb.mining.packed): read back, the same texts
    as a list's, and texts may still be appended after a read."""
    packed = PackedTexts()
    for text in texts:
        packed.append(text)
    assert (len(packed), packed.every(step)) == (len(texts), [texts[::step]])
    for text in more:
        packed.append(text)
    every = [*texts, *more]
    assert packed.every(step, 1, 7) == [every[::step], every, every[::7]]
