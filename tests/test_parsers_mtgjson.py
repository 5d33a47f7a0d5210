from __future__ import annotations

import datetime as dt
import io
import json
from collections import Counter, defaultdict
from collections.abc import Iterable

import pytest
from conftest import Record, of_type, parse_mtgjson
from realdata import realdata

from kb.importers import mtgjson, streams
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


def test_otj_excerpt() -> None:
    path = realdata("mtgjson_OTJ_excerpt.json")
    with path.open("rb") as stream:
        records = list(mtgjson.parse(stream, str(path)))
    by_card = _by_card(records)
    assert len(of_type(records, CardRecord)) == 6

    three_steps = by_card["Three Steps Ahead"]
    [card] = of_type(three_steps, CardRecord)
    assert three_steps[0] is card  # the card comes before its names and rulings
    assert (card.oracle_id, card.mana_cost, card.keywords) == (THREE_STEPS_AHEAD, "{U}", ("Spree",))
    rulings = of_type(three_steps, RulingRecord)
    assert len(rulings) == 18
    assert {ruling.published_on for ruling in rulings} == {dt.date(2024, 4, 12)}
    assert [ruling.position for ruling in rulings] == list(range(18))
    assert {ruling.card for ruling in rulings} == {CardRef(THREE_STEPS_AHEAD, "Three Steps Ahead")}
    names = {name.locale: name.name for name in of_type(three_steps, CardNameRecord)}
    assert set(names) == {"de", "es", "fr", "it", "ja", "pt-BR", "zh-Hans"}
    assert names["de"] == "Drei Schritte voraus"

    assert len(of_type(by_card["Caught in the Crossfire"], RulingRecord)) == 15
    assert of_type(by_card["This Town Ain't Big Enough"], RulingRecord) == []


@pytest.mark.parametrize("wrapped", [True, False])
def test_set_file_with_or_without_wrapper(wrapped: bool) -> None:
    excerpt = _excerpt()
    document = {"meta": {"version": "5.2.0"}, "data": excerpt} if wrapped else excerpt
    assert parse_mtgjson(document) == parse_mtgjson(_excerpt())


def test_all_printings_yields_each_card_once() -> None:
    # The same cards in two sets, and a reprint inside one set: one card, names and rulings once;
    # printed texts once per set (the loader keeps the most recent printing's).
    excerpt = _excerpt()
    cards = excerpt["cards"]
    assert isinstance(cards, list)
    reprinted = excerpt | {"cards": [*cards, cards[3]], "code": "OTX"}
    records = parse_mtgjson({"meta": {}, "data": {"OTJ": excerpt, "OTX": reprinted}})
    alone = parse_mtgjson(_excerpt())
    texts = of_type(alone, PrintedTextRecord)
    assert [r for r in records if not isinstance(r, PrintedTextRecord)] == [
        r for r in alone if not isinstance(r, PrintedTextRecord)
    ]
    assert of_type(records, PrintedTextRecord) == texts + texts


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
        parse_mtgjson({"meta": {}, "data": {"OTJ": _excerpt(), "OTX": second}})
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
        parse_mtgjson(document)
    prefix = "data.cards" if wrapped else "cards"
    assert str(raised.value) == f"cards.json: {prefix} {shown} is not a list"


@pytest.mark.parametrize("wrapped", [True, False])
def test_a_set_with_a_large_booster_before_its_cards_reads_them_all(wrapped: bool) -> None:
    excerpt = _excerpt()
    booster = {"default": {"sheets": {f"sheet{n}": {"cards": {"x" * 60: n}} for n in range(2000)}}}
    bare = {"baseSetSize": 1, "booster": booster} | excerpt
    document = {"meta": {}, "data": bare} if wrapped else bare
    assert parse_mtgjson(document) == parse_mtgjson(_excerpt())


def test_a_set_without_cards_has_none() -> None:
    assert parse_mtgjson({"meta": {}, "data": {"baseSetSize": 0, "code": "OTX"}}) == []


def test_an_all_printings_set_without_cards_has_none() -> None:
    records = parse_mtgjson({"meta": {}, "data": {"OTJ": _excerpt(), "OTX": {"code": "OTX"}}})
    assert records == parse_mtgjson(_excerpt())


def test_atomic_cards() -> None:
    cards = _excerpt()["cards"]
    assert isinstance(cards, list)
    atomic = {"meta": {}, "data": {card["name"]: [card] for card in cards}}
    assert Counter(type(record) for record in parse_mtgjson(atomic)) == Counter(
        type(record) for record in parse_mtgjson(_excerpt())
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
    records = parse_mtgjson({"data": {"baseSetSize": 2, "cards": [fire, fire, ice, ice]}})
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
    records = parse_mtgjson(set_file)
    assert [type(record).__name__ for record in records] == [
        "CardRecord",
        "CardNameRecord",
        "PrintedTextRecord",
    ]
    [text] = of_type(records, PrintedTextRecord)
    assert (text.card, text.locale, text.face, text.text) == (
        CardRef("bruna", "Bruna, the Fading Light"),
        "de",
        0,
        "Fliegend",
    )
    assert text.printing == Printing("EMN", "15a", dt.date(2016, 7, 22))
    assert text.card_name == "Bruna, das schwindende Licht"


def test_a_card_whose_other_face_never_comes_keeps_its_texts_and_their_set() -> None:
    """A face whose card the file never completes (an excerpt, a promo of one face) comes at
    the file's end, with its printed texts, each of the set it was read in."""
    german = {"language": "German", "name": "Feuer // Eis", "faceName": "Feuer", "type": "Spontan"}
    fire = _face("Fire // Ice", "Fire", "a", number="1", originalType="Instant")
    fire |= {"foreignData": [german | {"text": "Feuer."}]}
    early = {"cards": [fire], "code": "AAA", "releaseDate": "2001-01-01"}
    late = {"cards": [], "code": "BBB", "releaseDate": "2020-01-01"}
    records = parse_mtgjson({"meta": {}, "data": {"AAA": early, "BBB": late}})
    assert [type(record).__name__ for record in records] == [
        "CardRecord",
        "CardNameRecord",
        "PrintedTextRecord",
    ]
    [text] = of_type(records, PrintedTextRecord)
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
        parse_mtgjson({"data": {"baseSetSize": 1, "cards": [card]}})
    assert str(raised.value).startswith(f"cards.json: {reason}")


def test_not_mtgjson_and_truncated_files_are_parse_errors() -> None:
    with pytest.raises(ParseError, match="not an MTGJSON set"):
        parse_mtgjson([{"object": "card"}])
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
    texts = of_type(parse_mtgjson(document), PrintedTextRecord)
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
        [text] = of_type(parse_mtgjson(document), PrintedTextRecord)
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
        parse_mtgjson({"meta": {}, "data": {"OTX": {"cards": [], "releaseDate": "2024"}}})
    assert str(raised.value) == "cards.json: set OTX: releaseDate '2024' is not a date YYYY-MM-DD"
