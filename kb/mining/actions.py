"""Keyword actions and terms that stand inside sentences ("When ... enters, scry 2."), mined by
contrast: the words (in Japanese and Chinese, the character runs) found in the localized texts
of most cards whose English says the keyword, and rarely in those of the cards without it.

A keyword is taken for an action when fewer than ``ACTION_SHARE`` of the cards whose English
text says it have a line that starts with it; those cards are also the ones that vote (an old
printing of a card that MTGJSON now lists with "Mill" says "put the top two cards ... into ...
graveyard", and one it lists with "Domain" prints no ability word: neither tells anything).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Final

from kb.importers.mtgjson_texts import sentences
from kb.mining.keywords import ARTICLES, FUNCTION_WORDS
from kb.mining.packed import PackedTexts
from kb.mining.samples import Sample
from kb.mining.text import (
    CJK_LOCALES,
    display_form,
    is_hiragana,
    list_parts,
    without_reminder,
)
from kb.mining.votes import MinedName

ACTION_SHARE: Final = 0.6
"""Below this share of cards with a line that starts with the keyword, it is an action."""
CANDIDATES: Final = 6
"""How many of the n-grams most frequent among the keyword's cards are checked against the
cards without it (each check scans the locale's texts once)."""
MIN_SHARE: Final = 0.4
"""An n-gram must be in at least this share of the keyword's cards (a name inflected several
ways, German "millt", "millst", stands in about half of them in each form). Below it, only
words beside the name: Chinese Mill (磨, one character, which no candidate is) was 牌手,
"player", on a third of its cards."""
MIN_HOLDERS: Final = 2
"""An n-gram must stand on at least this many cards: on one of a keyword's three cards it is an
anecdote (Korean Meld was 쥐떼와, "with the rat swarm", of one card)."""
MIN_CONTRAST_CARDS: Final = 4
"""A name found by contrast needs this many cards whose English says the keyword: three
cards that say one sentence share every word of it (Meld's three cards, "if you both own and
control ..., exile them, then meld them": Italian "Se possiedi", "if you own")."""
FIRST_CUT_TEXTS: Final = 500
COUNTED_TEXTS: Final = 6000
Firsts = dict[tuple[str, str], tuple[int, bool]]
_KOREAN_ENDING: Final = re.compile(r"(?<=\w\w)(?:시킨다|한다|을|를)$")
"""A Korean action's verb ending (억류한다), or the object particle after it (탐험을 한다)."""


_PARTICLES: Final = "をがにはのとでへもやかね"
_KANA: Final = "".join(chr(code) for code in range(0x3041, 0x3097) if chr(code) not in _PARTICLES)
_JAPANESE_VERB: Final = re.compile(f"(?:[\u4e00-\u9fff々]+[{_KANA}]){{2,}}")
"""A verb written with its okurigana, each kanji run followed by one kana that is not a
particle: 打ち消す (counter), whose kana keep it from the runs of kanji and katakana."""


_CHINESE: Final = CJK_LOCALES - {"ja"}
_CHINESE_EDGES: Final = frozenset("它你其该該此将將令的张張个個时時有之一二三四五六七八九十两兩")
"""Pronouns, measure words, numbers and particles: a Chinese run that starts or ends with one
is a name with its neighbour (它勘 of 令它勘察, explore), never the name."""
_LONGEST_RUN: Final = 6
"""Characters of the longest Japanese or Chinese candidate."""
_WORD: Final = re.compile(r"[^\W\d_]+")
_CJK_SEGMENT: Final = re.compile(r"[^\w]+|[\d０-９_a-zA-ZＸ]+")


@dataclass(slots=True)
class _Locale:
    texts: PackedTexts = field(default_factory=PackedTexts)
    """Every sample's localized text, case-folded, for counting an n-gram among all cards
    (compressed: on the real corpus they would be the mining's largest part)."""
    mentions: dict[str, dict[str, str]] = field(default_factory=lambda: defaultdict(dict))
    """keyword -> card -> the card's localized text as printed, for the cards whose English
    says it."""
    cards: dict[str, int] = field(default_factory=Counter)
    """keyword -> how many of this locale's samples list it."""


class Contrast:
    """Collects texts per locale, then names the keywords that stand inside sentences."""

    def __init__(self) -> None:
        self._locales: dict[str, _Locale] = defaultdict(_Locale)
        self.firsts: Firsts = {}
        """(card, keyword) -> where the card's first sample whose English says the keyword
        stands among the samples, and whether its English lines start with the keyword: a card
        counts once, by that sample in any locale."""
        self._word_starts: dict[str, re.Pattern[str]] = {}
        """Per keyword, case-folded: the pattern of it as a word's start."""

    def add(self, sample: Sample, position: int) -> None:
        """Add a sample, the ``position``-th of all (samples come in order; a miner that sees
        only some of them is told where each stands, see kb.mining.two_cores)."""
        if not sample.localized:
            return
        # Reminder text is left out: it explains the keyword in the same words on every card,
        # so every one of its n-grams would stand out as much as the name.
        printed = "\n".join(without_reminder(line) for line in sample.localized)
        text = printed.casefold()
        into = self._locales[sample.locale]
        into.texts.append(text)
        if not sample.keywords:
            return
        english = "\n".join(sample.english).casefold()
        starting: set[str] | None = None
        # Only a text of several lines or sentences, each matching the English, narrows.
        lines = len(sample.english)
        narrows = lines == len(sample.localized) and (
            lines > 1 or _INNER_STOP.search(english) is not None
        )
        for keyword in sample.keywords:
            folded = keyword.casefold()
            # As a word's start: "landwalk" is not in "islandwalk", "mill" is in "mills".
            if not (
                folded in english
                and self._word_start(folded).search(
                    _without_longer(english, folded, sample.keywords)
                )
            ):
                continue
            mentions = into.mentions[keyword]
            if sample.card not in mentions:
                # A line that starts with the keyword says it where its name stands: only a
                # keyword said inside sentences narrows (most are abilities, and not).
                said = (
                    narrows
                    and not english.startswith(folded)
                    and f"\n{folded}" not in english
                    and _said(
                        sample, english.split("\n"), printed.split("\n"), self._word_start(folded)
                    )
                )
                mentions[sample.card] = said or printed
            if (sample.card, keyword) not in self.firsts:
                # Whether the English lines start with it: counted once per card, any locale.
                if starting is None:
                    starting = _starting_keywords(sample)
                self.firsts[(sample.card, keyword)] = (position, keyword in starting)

    def _word_start(self, folded: str) -> re.Pattern[str]:
        pattern = self._word_starts.get(folded)
        if pattern is None:
            pattern = self._word_starts[folded] = re.compile(r"\b" + re.escape(folded))
        return pattern

    def results(self, actions: frozenset[str], minimum: int = 1) -> list[MinedName]:
        """The names of ``actions`` (``actions(firsts)``) in this miner's locales."""
        mined = []
        for locale in sorted(self._locales):
            into = self._locales[locale]
            background = Background(into.texts, locale)
            for keyword in sorted(actions & set(into.mentions)):
                texts = list(into.mentions[keyword].values())
                if len(texts) >= max(minimum, MIN_CONTRAST_CARDS):
                    name = _contrast(
                        keyword,
                        locale,
                        into.mentions[keyword],
                        len(into.texts),
                        background,
                    )
                    if name is not None:
                        mined.append(name)
        return mined


def actions(firsts: Firsts, also: frozenset[str] = frozenset()) -> frozenset[str]:
    """The keywords taken for actions: fewer than ``ACTION_SHARE`` of their cards' English
    lines start with them, and ``also`` whatever their lines (an action that starts its
    lines: "Counter target spell.")."""
    listed: Counter[str] = Counter()
    starts: Counter[str] = Counter()
    for (_card, keyword), (_position, starting) in firsts.items():
        listed[keyword] += 1
        starts[keyword] += starting
    return also | {
        keyword for keyword, count in listed.items() if starts[keyword] < ACTION_SHARE * count
    }


def earliest(*firsts: Firsts) -> Firsts:
    """Several miners' ``firsts`` as one miner that saw all their samples would have them."""
    merged: Firsts = {}
    for each in firsts:
        for key, first in each.items():
            kept = merged.get(key)
            if kept is None or first[0] < kept[0]:
                merged[key] = first
    return merged


_INNER_STOP: Final = re.compile(r"[.!?][\"”’)]*\s")
"""A full stop inside a line, where a second sentence may start."""


def _said(
    sample: Sample, folded: list[str], printed: list[str], keyword: re.Pattern[str]
) -> str | None:
    """Where the localized text says the keyword (reminder text left out): the lines whose
    English lines say it, where both have as many lines, and of those the sentences whose
    English sentences say it, where both have as many. Only there is the name: Russian Clash
    cards say "Столкнитесь с оппонентом. Если вы выиграли, ..." (clash ..., if you won), and
    "выиграли" stood on as many of them as the name. ``folded``: the English lines,
    case-folded; ``printed``: as many localized lines, without their reminder text."""
    said = []
    for english_line, folded_line, line in zip(sample.english, folded, printed, strict=True):
        # Cheap tests first: this runs for every keyword of every sample.
        if not keyword.search(folded_line):
            continue
        english_line = without_reminder(english_line)
        if not keyword.search(english_line.casefold()):
            continue
        if not _INNER_STOP.search(english_line):  # one sentence
            said.append(line)
            continue
        english_sentences = sentences(english_line, "en")
        own = sentences(line, sample.locale)
        if len(own) != len(english_sentences):
            said.append(line)
            continue
        said.extend(
            part
            for english_part, part in zip(english_sentences, own, strict=True)
            if keyword.search(english_part.casefold())
        )
    return "\n".join(said) or None


def _without_longer(english: str, folded: str, keywords: tuple[str, ...]) -> str:
    """The folded English text without the card's longer keywords that hold ``folded``: a
    card that says "Basic landcycling" does not say Landcycling, the umbrella that MTGJSON lists
    beside it (mined from those cards, Landcycling was Spanish "Básicas", Russian "Базовых")."""
    for other in keywords:
        longer = other.casefold()
        if longer != folded and folded in longer:
            english = english.replace(longer, "")
    return english


def _starting_keywords(sample: Sample) -> set[str]:
    """The keywords that start a line of the English text, or stand in a line that lists
    keywords ("Flying, haste"), not in a sentence ("..., detain target creature")."""
    folded = [(keyword, keyword.casefold()) for keyword in sample.keywords]
    found: set[str] = set()
    for line in sample.english:
        parts = [part.casefold() for part in list_parts(line)]
        listed = [{keyword for keyword, word in folded if part.startswith(word)} for part in parts]
        if all(listed):
            found.update(*listed)
        else:
            found.update(keyword for keyword, word in folded if parts and parts[0].startswith(word))
    return found


def _grams(text: str, locale: str) -> set[str]:
    """A text's words and pairs of words; in Japanese and Chinese, its runs of 2-6 characters
    between digits and punctuation (占術 in 占術2を行う)."""
    if locale in CJK_LOCALES:
        found: set[str] = set()
        for segment in _CJK_SEGMENT.split(text):
            for start in range(len(segment)):
                for end in range(start + 2, min(start + _LONGEST_RUN, len(segment)) + 1):
                    gram = segment[start:end]
                    # A Japanese name is written in kanji or katakana: a run with hiragana
                    # holds a particle or an inflection (闘を, 身させ)...
                    if locale != "ja" or not any(map(is_hiragana, gram)):
                        found.add(gram)
            if locale == "ja":  # ... unless it is a verb with its okurigana (打ち消す)
                found.update(
                    verb.group()
                    for verb in _JAPANESE_VERB.finditer(segment)
                    if len(verb.group()) <= _LONGEST_RUN
                )
        return found
    words = list(_WORD.finditer(text))
    # Two words only where one space parts them as printed ("all'inizio" is not "all inizio").
    return {word.group() for word in words} | {
        f"{first.group()} {second.group()}"
        for first, second in itertools.pairwise(words)
        if text[first.end() : second.start()] == " "
    }


def _contrast(
    keyword: str,
    locale: str,
    by_card: dict[str, str],
    total: int,
    background: Background,
) -> MinedName | None:
    """The n-gram with the best share among the keyword's cards times the share of the cards
    holding it that have the keyword (its precision): "Hellsicht", not "deiner"."""
    frequency: Counter[str] = Counter()
    folded = {card: text.casefold() for card, text in by_card.items()}
    own_texts = [counted_form(text, locale) for text in folded.values()]
    for text in folded.values():
        frequency.update(_grams(text, locale))
    cards = len(by_card)

    def estimate(item: tuple[str, int]) -> tuple[float, int, str]:
        gram, count = item
        return (count / cards * background.precision(gram, count, total), -len(gram), gram)

    # A lone preposition or article is no name, however often it stands beside one: German
    # "kämpft gegen" (fight) gave "Gegen".
    small = FUNCTION_WORDS.get(locale, frozenset()) | ARTICLES.get(locale, frozenset())
    frequent = sorted(
        (
            item
            for item in frequency.items()
            if item[1] >= max(MIN_SHARE * cards, MIN_HOLDERS)
            and item[0] not in small
            and not (
                locale in _CHINESE
                and (item[0][0] in _CHINESE_EDGES or item[0][-1] in _CHINESE_EDGES)
            )
        ),
        key=estimate,
        reverse=True,
    )[:CANDIDATES]
    if not frequent:
        return None

    # Japanese runs hold no hiragana, so the longer run is the whole name (怪物化, not 物化);
    # in Chinese the shorter; elsewhere one word rather than two (erkundet, not kommt
    # erkundet), by count.
    def length(gram: str) -> int:
        if locale == "ja":
            return len(gram)
        if locale in CJK_LOCALES:
            return -len(gram)
        return -gram.count(" ")

    def score(item: tuple[str, int]) -> tuple[int, int, int, str]:
        """In steps of 10 %; then by length; then by count."""
        gram, count = item
        # Occurrences, not cards, elsewhere (str.count is fast); the keyword's own cards'
        # occurrences are taken off, so a name said twice on a card costs nothing.
        own = sum(text.count(counted_gram(gram, locale)) for text in own_texts)
        elsewhere = max(background.occurrences(gram) - own, 0)
        return (round(count / cards * count / (count + elsewhere) * 10), length(gram), count, gram)

    ranked = sorted(frequent, key=score, reverse=True)
    if " " in ranked[0][0]:
        # Two words win where one of them alone is on as many cards: the name, not its
        # neighbour ("erkundet", not "kommt erkundet").
        words = ranked[0][0].split()
        alone = [item for item in ranked if item[0] in words and item[1] >= ranked[0][1]]
        if alone:
            ranked.remove(alone[0])
            ranked.insert(0, alone[0])
    (best, count), runner_up = ranked[0], ranked[1] if len(ranked) > 1 else None
    pattern = re.compile(re.escape(best), re.IGNORECASE)
    forms = [found.group() for text in by_card.values() for found in pattern.finditer(text)]
    if locale == "ko":
        # A Korean action is a verb: 억류한다 is 억류 (detain) and its ending; 탐험을 is 탐험
        # (explore) and the particle of 탐험을 한다.
        forms = [_KOREAN_ENDING.sub("", form) or form for form in forms]
    return MinedName(
        mechanic=keyword,
        locale=locale,
        name=display_form(forms) if forms else best,
        cards=count,
        voters=cards,
        method="contrast",
        runner_up=runner_up[0] if runner_up else None,
        runner_up_cards=runner_up[1] if runner_up else 0,
        examples=tuple(sorted(card for card, text in folded.items() if best in text)[:3]),
    )


class Background:
    """How often n-grams stand in a locale's texts, estimated from a spread of them (every
    n-th text): a first cut over ``FIRST_CUT_TEXTS`` of them by their n-grams, then counts of
    the few candidates left in ``COUNTED_TEXTS`` of them, scaled to the whole."""

    def __init__(self, texts: PackedTexts, locale: str) -> None:
        self._total = len(texts)
        step = max(1, len(texts) // FIRST_CUT_TEXTS)
        self._step = max(1, len(texts) // COUNTED_TEXTS)
        first_cut, counted = texts.every(step, self._step)
        self._sampled = len(first_cut)
        self._counts: Counter[str] = Counter()
        for text in first_cut:
            self._counts.update(_grams(text, locale))
        self._locale = locale
        self._counted = "\x00".join(counted_form(text, locale) for text in counted)
        self._occurrences: dict[str, int] = {}

    def precision(self, gram: str, count: int, total: int) -> float:
        estimated = self._counts[gram] * total / max(self._sampled, 1)
        return count / max(estimated, count)

    def occurrences(self, gram: str) -> int:
        """About how often the n-gram occurs in all the locale's texts (counted once: the
        keywords of a locale share candidates)."""
        found = self._occurrences.get(gram)
        if found is None:
            counted = self._counted.count(counted_gram(gram, self._locale))
            found = self._occurrences[gram] = counted * self._step
        return found


_BREAK: Final = re.compile(r"[\W\d_]{2,}|[^\w ]|[\d_]")
"""What parts two words other than one space (punctuation, digits, several spaces)."""


def counted_form(text: str, locale: str) -> str:
    """A text as n-grams are counted in it (``counted_gram``): its words, each between spaces,
    one space where one space parts two words as printed (a pair of ``_grams``), " | "
    elsewhere (" se bat | puis "); in Japanese and Chinese, which part no words, the text."""
    return text if locale in CJK_LOCALES else f" {_BREAK.sub(' | ', text)} "


def counted_gram(gram: str, locale: str) -> str:
    """An n-gram as ``counted_form`` texts hold it: as whole words (French "se" is not in
    "chose", "bat" not in "bataille"), or as a run of Japanese or Chinese."""
    return gram if locale in CJK_LOCALES else f" {gram} "


def occurrences(text: str, gram: str, locale: str) -> int:
    """How often ``gram`` stands in ``text``."""
    return counted_form(text, locale).count(counted_gram(gram, locale))
